// The seccomp program, run through a classic-BPF interpreter: what each system call a cell might make gets back.
import { describe, expect, it } from "vitest";
import { buildSeccompProgram } from "../../src/runtime/sandbox-seccomp.js";
import { AARCH64, DENIED_SYSCALLS, MISSING_SYSCALLS, X86_64 } from "../../src/runtime/sandbox-syscalls.js";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

/** Runs the filter on one call (number, arch, the low halves of the arguments), as the kernel would. */
function decide(program: Buffer, nr: number, arch: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  args.forEach((value, i) => {
    data.writeUInt32LE(value >>> 0, 16 + 8 * i);
  });
  let acc = 0;
  let pc = 0;
  for (let steps = 0; steps < 1000; steps++) {
    const at = pc * 8;
    if (at >= program.length) throw new Error("ran off the end of the program");
    const code = program.readUInt16LE(at);
    const jt = program.readUInt8(at + 2);
    const jf = program.readUInt8(at + 3);
    const k = program.readUInt32LE(at + 4);
    pc += 1;
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown opcode ${code}`);
  }
  throw new Error("no return within 1000 steps");
}

describe.each([
  ["x64", X86_64, { read: 0, openat: 257, mmap: 9 }],
  ["arm64", AARCH64, { read: 63, openat: 56, mmap: 222 }],
] as const)("the seccomp filter on %s", (cpu, table, ordinary) => {
  const program = buildSeccompProgram(cpu) as Buffer;
  const call = (name: string, args: number[] = []) =>
    decide(program, table.numbers[name] as number, table.auditArch, args);

  it("lets ordinary calls through", () => {
    for (const nr of Object.values(ordinary)) expect(decide(program, nr, table.auditArch)).toBe(ALLOW);
  });

  it("refuses every denied call with EPERM and answers clone3 and io_uring with ENOSYS", () => {
    for (const name of Object.keys(DENIED_SYSCALLS)) {
      if (table.numbers[name] !== undefined) expect(call(name), name).toBe(EPERM);
    }
    for (const name of Object.keys(MISSING_SYSCALLS)) expect(call(name), name).toBe(ENOSYS);
  });

  it("allows clone for threads and processes but not with namespace flags, and unshare only without them", () => {
    expect(call("clone", [0x3d0f00])).toBe(ALLOW); // pthread_create's flags
    expect(call("clone", [0x01200011])).toBe(ALLOW); // fork()
    expect(call("clone", [0x10000000 | 17])).toBe(EPERM); // CLONE_NEWUSER
    expect(call("clone", [0x20000 | 17])).toBe(EPERM); // CLONE_NEWNS
    expect(call("unshare", [0x400])).toBe(ALLOW); // CLONE_FILES
    expect(call("unshare", [0x40000000])).toBe(EPERM); // CLONE_NEWNET
    expect(call("unshare", [0x80])).toBe(EPERM); // CLONE_NEWTIME
  });

  it("refuses TIOCSTI and TIOCLINUX but not other ioctls", () => {
    expect(call("ioctl", [0, 0x5412])).toBe(EPERM);
    expect(call("ioctl", [0, 0x541c])).toBe(EPERM);
    expect(call("ioctl", [0, 0x5401])).toBe(ALLOW); // TCGETS: isatty()
  });

  it("allows querying and the common personalities but not ASLR off", () => {
    expect(call("personality", [0xffffffff])).toBe(ALLOW);
    expect(call("personality", [0])).toBe(ALLOW);
    expect(call("personality", [0x0040000])).toBe(EPERM); // ADDR_NO_RANDOMIZE
  });

  it("refuses another ABI as a whole (i386 through int 0x80 has other numbers)", () => {
    expect(decide(program, ordinary.read, 0x40000003)).toBe(ENOSYS);
  });
});

describe("the seccomp filter's reach", () => {
  it("refuses the x32 ABI on x86_64, whose numbers carry bit 30", () => {
    const program = buildSeccompProgram("x64") as Buffer;
    expect(decide(program, 0x40000000 + 101, X86_64.auditArch)).toBe(ENOSYS);
  });

  it("has no program for an architecture without a table, so doctor can say seccomp is off", () => {
    expect(buildSeccompProgram("ia32")).toBeUndefined();
  });
});
