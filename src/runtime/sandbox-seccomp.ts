// The seccomp filter of every sandboxed kernel: a classic BPF program, built here, that bwrap installs (--seccomp FD).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { arch, endianness, tmpdir } from "node:os";
import path from "node:path";
import { AARCH64, DENIED_SYSCALLS, MISSING_SYSCALLS, type SyscallTable, X86_64 } from "./sandbox-syscalls.js";

/** Calls allowed only with some arguments (checked in the program below). */
const ARGUMENT_CHECKED = ["clone", "unshare", "ioctl", "personality"] as const;

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
let program: Buffer | null | undefined;

/**
 * A file holding the filter, for the launcher to open as bwrap's `--seccomp` descriptor; undefined where this
 * machine has no table. Built and written once per process: a file named by its content in evalkit's cache (the
 * cell never sees it), else in a private temporary directory.
 */
export function seccompProgramFile(evalkitHome: string): string | undefined {
  // Written once; written again only if someone removed it meanwhile (a cleaned cache or temporary directory).
  if (programFile === null) return undefined;
  if (programFile !== undefined && existsSync(programFile)) return programFile;
  program ??= buildSeccompProgram() ?? null;
  if (program === null) {
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
