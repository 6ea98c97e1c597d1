// bwrap reports a sandboxed process killed by a signal as exit code 128+N; kernels report the signal instead.
import { constants } from "node:os";
import type { KernelCgroup } from "../../runtime/sandbox-cgroup.js";

/** The notice of a kernel whose cgroup ran out of memory: certain, and it names what counts. */
export function describeCgroupOom(cgroup: KernelCgroup): string {
  return `out of memory: the kernel's cgroup reached its memory limit ${cgroup.memoryMb} MB (every page counts: heap, memfd, shared memory, tmpfs files) and the kernel was killed`;
}

/** `{152, null}` → `{null, "SIGXCPU"}` for a sandboxed kernel; anything else unchanged. */
export function unwrapSandboxExit(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
): { exitCode: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || exitCode === null || exitCode <= 128) return { exitCode, signal };
  const number = exitCode - 128;
  const name = Object.entries(constants.signals).find(([, value]) => value === number)?.[0];
  return name === undefined ? { exitCode, signal } : { exitCode: null, signal: name as NodeJS.Signals };
}
