// Turns a kernel's exit into words a model can act on: exit code, signal, likely out-of-memory, stderr tail.
import type { KernelExit } from "../kernel/kernel.js";

const STDERR_TAIL_MAX_CHARS = 2000;
const STDERR_TAIL_MAX_LINES = 20;

/**
 * `exit code 1`, `signal SIGSEGV`, `signal SIGKILL: out of memory, or killed by…`. A SIGKILL the host did not
 * send almost always comes from the kernel's OOM killer (or a container's memory limit).
 */
export function describeExitCause(exit: KernelExit | undefined): string {
  if (!exit) return "unknown cause";
  // The kernel knows better than its status: a memory limit it enforced ends it with SIGKILL or SIGABRT.
  if (exit.cause) return exit.signal ? `${exit.cause}; signal ${exit.signal}` : exit.cause;
  if (exit.signal) {
    if (exit.signal === "SIGKILL" && !exit.requested) {
      return "signal SIGKILL: out of memory, or killed by another process";
    }
    return `signal ${exit.signal}`;
  }
  if (exit.exitCode !== null) return `exit code ${exit.exitCode}`;
  return "unknown cause";
}

/** The last lines of the kernel's own stderr, bounded, or undefined when it wrote nothing. */
export function trimStderrTail(tail: string | undefined): string | undefined {
  if (!tail) return undefined;
  const lines = tail.replace(/\s+$/, "").split("\n");
  let text = lines.slice(-STDERR_TAIL_MAX_LINES).join("\n");
  if (text.length > STDERR_TAIL_MAX_CHARS) text = `…${text.slice(-STDERR_TAIL_MAX_CHARS)}`;
  return text.trim() === "" ? undefined : text;
}

/** Notice for a cell whose kernel died while it ran. */
export function describeDeathDuringCell(exit: KernelExit | undefined): string {
  return `kernel died during the cell (${describeExitCause(exit)}); state was lost and the cell was not re-run`;
}

/** Notice for the first cell after a retained kernel was replaced. */
export function describeRestart(reason: string): string {
  return `kernel restarted: ${reason}; state was lost`;
}

/** Reason for a kernel that ended between calls. */
export function describeIdleDeath(exit: KernelExit | undefined): string {
  return `previous kernel exited (${describeExitCause(exit)})`;
}
