// The seccomp filter of every sandboxed kernel: a classic BPF program, built here, that bwrap installs (--seccomp FD).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { arch, endianness, tmpdir } from "node:os";
import path from "node:path";

/** The system-call numbers of one architecture (only the ones the filter names). */
interface SyscallTable {
  /** AUDIT_ARCH_* value the kernel puts in seccomp_data.arch for this ABI. */
  auditArch: number;
  /** x86_64 only: the x32 ABI sets this bit in the number; x32 calls are refused as a whole. */
  x32Bit?: number;
  numbers: Record<string, number>;
}

/** The calls refused with EPERM outright, each with why a cell never needs it (docs/security.md lists them). */
export const DENIED_SYSCALLS: Record<string, string> = {
  ptrace: "tracing another process reads and writes its memory (a sibling kernel, the runner itself)",
  process_vm_readv: "reads another process's memory without ptrace",
  process_vm_writev: "writes another process's memory without ptrace",
  pidfd_getfd: "steals a file descriptor from another process",
  kcmp: "compares kernel objects of other processes (an information leak)",
  keyctl: "the kernel keyring is not namespaced: keys of the host user are reachable",
  add_key: "the kernel keyring is not namespaced",
  request_key: "the kernel keyring is not namespaced",
  mount: "a new mount could undo the read-only layout",
  umount2: "unmounting a read-only cover shows what it hides",
  pivot_root: "changes the root of the mount namespace",
  chroot: "a chroot is the first step of classic escapes",
  setns: "joins another namespace",
  fsopen: "the new mount API: same reason as mount",
  fsconfig: "the new mount API: same reason as mount",
  fsmount: "the new mount API: same reason as mount",
  fspick: "the new mount API: same reason as mount",
  move_mount: "the new mount API: same reason as mount",
  open_tree: "the new mount API: same reason as mount",
  mount_setattr: "changes mount flags (read-only) of existing mounts",
  bpf: "eBPF programs are kernel code and a common source of kernel exploits",
  perf_event_open:
    "performance counters leak other processes' activity and are a common kernel attack surface",
  userfaultfd: "pauses the kernel at a chosen page fault: the usual tool to win kernel races",
  init_module: "loads kernel code",
  finit_module: "loads kernel code",
  delete_module: "unloads kernel code",
  kexec_load: "replaces the running kernel",
  kexec_file_load: "replaces the running kernel",
  acct: "process accounting writes a file of the caller's choosing for every exit",
  swapon: "adds swap: a file of the cell's would hold other processes' memory",
  swapoff: "removes the host's swap",
  reboot: "restarts or halts the machine",
  open_by_handle_at:
    "opens any file of a mounted file system by handle, outside the sandbox's view (the 'shocker' escape)",
  name_to_handle_at: "the first half of open_by_handle_at",
  syslog: "reads and clears the kernel log (addresses that defeat KASLR)",
  lookup_dcookie: "turns kernel cookies into paths outside the sandbox",
  quotactl: "changes disk quotas of the host's file systems",
  quotactl_fd: "changes disk quotas of the host's file systems",
  vhangup: "hangs up the terminal of other processes",
  settimeofday: "sets the host's clock",
  clock_settime: "sets the host's clock",
  clock_adjtime: "adjusts the host's clock",
  adjtimex: "adjusts the host's clock",
  fanotify_init: "watches file access across the whole file system",
  iopl: "raw I/O port access",
  ioperm: "raw I/O port access",
  uselib: "an obsolete loader call with a history of kernel bugs",
  _sysctl: "the obsolete binary sysctl interface",
};

/** The calls answered ENOSYS, as if this kernel lacked them: the caller falls back to an older call. */
export const MISSING_SYSCALLS: Record<string, string> = {
  clone3:
    "its flags live in memory a filter cannot read, so namespace flags could not be refused; glibc falls back to clone",
  io_uring_setup:
    "io_uring runs file and network operations that seccomp never sees; libuv falls back to threads",
  io_uring_enter: "see io_uring_setup",
  io_uring_register: "see io_uring_setup",
};

/** Calls allowed only with some arguments (checked in the program below). */
const ARGUMENT_CHECKED = ["clone", "unshare", "ioctl", "personality"] as const;

const X86_64: SyscallTable = {
  auditArch: 0xc000003e,
  x32Bit: 0x40000000,
  numbers: {
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    pidfd_getfd: 438,
    kcmp: 312,
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    chroot: 161,
    setns: 308,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    move_mount: 429,
    open_tree: 428,
    mount_setattr: 442,
    bpf: 321,
    perf_event_open: 298,
    userfaultfd: 323,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    kexec_load: 246,
    kexec_file_load: 320,
    acct: 163,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    open_by_handle_at: 304,
    name_to_handle_at: 303,
    syslog: 103,
    lookup_dcookie: 212,
    quotactl: 179,
    quotactl_fd: 443,
    vhangup: 153,
    settimeofday: 164,
    clock_settime: 227,
    clock_adjtime: 305,
    adjtimex: 159,
    fanotify_init: 300,
    iopl: 172,
    ioperm: 173,
    uselib: 134,
    _sysctl: 156,
    clone3: 435,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    clone: 56,
    unshare: 272,
    ioctl: 16,
    personality: 135,
  },
};

/** aarch64 uses the generic table (no iopl, ioperm, uselib or _sysctl there). */
const AARCH64: SyscallTable = {
  auditArch: 0xc00000b7,
  numbers: {
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    pidfd_getfd: 438,
    kcmp: 272,
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    chroot: 51,
    setns: 268,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    move_mount: 429,
    open_tree: 428,
    mount_setattr: 442,
    bpf: 280,
    perf_event_open: 241,
    userfaultfd: 282,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    kexec_load: 104,
    kexec_file_load: 294,
    acct: 89,
    swapon: 224,
    swapoff: 225,
    reboot: 142,
    open_by_handle_at: 265,
    name_to_handle_at: 264,
    syslog: 116,
    lookup_dcookie: 18,
    quotactl: 60,
    quotactl_fd: 443,
    vhangup: 58,
    settimeofday: 170,
    clock_settime: 112,
    clock_adjtime: 266,
    adjtimex: 171,
    fanotify_init: 262,
    clone3: 435,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    clone: 220,
    unshare: 97,
    ioctl: 29,
    personality: 92,
  },
};

/** Namespace flags of clone(): CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
const CLONE_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** unshare() takes the same flags plus CLONE_NEWTIME (0x80, which clone() reads as part of the exit signal). */
const UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x80;
/** ioctls that push input into a terminal (TIOCSTI) or drive the console (TIOCLINUX). */
const TERMINAL_INJECTION = [0x5412, 0x541c];
/** personality() values a program may set (the ones Docker allows); ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC are not. */
const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
/** Offsets in struct seccomp_data: nr, arch, then args[6] as 64-bit values (the low half first, little-endian). */
const NR = 0;
const ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;

type Target = string | number;
interface Instruction {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
  label?: string;
}

/** The syscall table of this machine, or undefined where the filter cannot be built (another CPU, big-endian). */
export function syscallTable(cpu: string = arch()): SyscallTable | undefined {
  if (endianness() !== "LE") return undefined;
  if (cpu === "x64") return X86_64;
  if (cpu === "arm64") return AARCH64;
  return undefined;
}

/** The filter as bytes (struct sock_filter[]), or undefined when this machine has no table. */
export function buildSeccompProgram(cpu: string = arch()): Buffer | undefined {
  const table = syscallTable(cpu);
  if (table === undefined) return undefined;
  const nr = (name: string): number => {
    const n = table.numbers[name];
    if (n === undefined) throw new Error(`no syscall number for ${name}`);
    return n;
  };
  const has = (name: string) => table.numbers[name] !== undefined;
  const code: Instruction[] = [];
  const emit = (i: Instruction) => code.push(i);
  // Another ABI (i386 through int 0x80 on x86_64) has other numbers: refused as a whole.
  emit({ code: LD_W_ABS, k: ARCH });
  emit({ code: JEQ_K, k: table.auditArch, jt: 0, jf: "enosys" });
  emit({ code: LD_W_ABS, k: NR });
  if (table.x32Bit !== undefined) emit({ code: JGE_K, k: table.x32Bit, jt: "enosys", jf: 0 });
  for (const name of Object.keys(DENIED_SYSCALLS).filter(has))
    emit({ code: JEQ_K, k: nr(name), jt: "eperm", jf: 0 });
  for (const name of Object.keys(MISSING_SYSCALLS)) emit({ code: JEQ_K, k: nr(name), jt: "enosys", jf: 0 });
  for (const name of ARGUMENT_CHECKED) emit({ code: JEQ_K, k: nr(name), jt: name, jf: 0 });
  emit({ code: RET_K, k: RET_ALLOW });
  emit({ label: "clone", code: LD_W_ABS, k: argLow(0) });
  emit({ code: JSET_K, k: CLONE_NAMESPACES, jt: "eperm", jf: "allow" });
  emit({ label: "unshare", code: LD_W_ABS, k: argLow(0) });
  emit({ code: JSET_K, k: UNSHARE_NAMESPACES, jt: "eperm", jf: "allow" });
  emit({ label: "ioctl", code: LD_W_ABS, k: argLow(1) });
  for (const request of TERMINAL_INJECTION) emit({ code: JEQ_K, k: request, jt: "eperm", jf: 0 });
  emit({ code: RET_K, k: RET_ALLOW });
  emit({ label: "personality", code: LD_W_ABS, k: argLow(0) });
  for (const value of PERSONALITIES) emit({ code: JEQ_K, k: value, jt: "allow", jf: 0 });
  emit({ code: RET_K, k: RET_ERRNO | EPERM });
  emit({ label: "allow", code: RET_K, k: RET_ALLOW });
  emit({ label: "eperm", code: RET_K, k: RET_ERRNO | EPERM });
  emit({ label: "enosys", code: RET_K, k: RET_ERRNO | ENOSYS });
  return assemble(code);
}

/** Resolves labels to forward offsets (at most 255: the jump fields are one byte) and packs 8 bytes each. */
function assemble(code: Instruction[]): Buffer {
  const labels = new Map<string, number>();
  code.forEach((i, at) => {
    if (i.label !== undefined) labels.set(i.label, at);
  });
  const offset = (target: Target | undefined, at: number): number => {
    if (target === undefined) return 0;
    if (typeof target === "number") return target;
    const to = labels.get(target);
    if (to === undefined || to <= at || to - at - 1 > 255) throw new Error(`bad seccomp jump to ${target}`);
    return to - at - 1;
  };
  const out = Buffer.alloc(code.length * 8);
  code.forEach((i, at) => {
    out.writeUInt16LE(i.code, at * 8);
    out.writeUInt8(offset(i.jt, at), at * 8 + 2);
    out.writeUInt8(offset(i.jf, at), at * 8 + 3);
    out.writeUInt32LE(i.k >>> 0, at * 8 + 4);
  });
  return out;
}

let programFile: string | null | undefined;

/**
 * A file holding the filter, for the launcher to open as bwrap's `--seccomp` descriptor; undefined where this
 * machine has no table. Built and written once per process: a file named by its content in evalkit's cache (the
 * cell never sees it), else in a private temporary directory.
 */
export function seccompProgramFile(evalkitHome: string): string | undefined {
  if (programFile !== undefined) return programFile ?? undefined;
  const program = buildSeccompProgram();
  if (program === undefined) {
    programFile = null;
    return undefined;
  }
  const name = `seccomp-${arch()}-${createHash("sha256").update(program).digest("hex").slice(0, 16)}.bpf`;
  programFile =
    writeProgram(path.join(evalkitHome, "cache"), name, program) ?? writeProgram(undefined, name, program);
  return programFile ?? undefined;
}

function writeProgram(dir: string | undefined, name: string, program: Buffer): string | null {
  try {
    const target = dir ?? mkdtempSync(path.join(tmpdir(), "evalkit-seccomp-"));
    mkdirSync(target, { recursive: true, mode: 0o700 });
    const file = path.join(target, name);
    if (existsSync(file) && readFileSync(file).equals(program)) return file;
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, program, { mode: 0o600 });
    renameSync(partial, file);
    return file;
  } catch {
    return null;
  }
}
