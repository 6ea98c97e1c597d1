// What a kernel's death means for the cell that was running, in one place for every runtime: KERNEL_DIED with
// how it ended (killed after an ignored interrupt, a limit, a crash), the exit code or signal and stderr's tail.
import { EvalkitError } from "../../errors.js";
import type { KernelExit } from "../kernel.js";

/** The last five lines of the runner's stderr, on a line of their own, or nothing. */
export function summarizeStderr(tail: string): string {
  const trimmed = tail.trim();
  if (!trimmed) return "";
  return `\n${trimmed.split("\n").slice(-5).join("\n")}`;
}

/** How an exit reads in a message: its cause when known, else its signal or exit code. */
function describeHow(exit: KernelExit): string {
  return exit.cause ?? exit.signal ?? `exit code ${exit.exitCode}`;
}

/** The details every death notice carries (the exit itself too, for callers that keep it). */
function detailsOf(exit: KernelExit): Record<string, unknown> {
  return {
    exitCode: exit.exitCode,
    signal: exit.signal,
    requested: exit.requested,
    stderrTail: exit.stderrTail,
    ...(exit.cause ? { cause: exit.cause, outOfMemory: exit.outOfMemory === true } : {}),
    exit,
  };
}

/**
 * KERNEL_DIED for the cell that was running when the kernel ended. `killedAfterMs`: the client killed it because
 * the cell ignored its interrupt that long (`killed: true`); otherwise it died on its own (or of a limit).
 */
export function describeCellDeath(
  runtimeName: string,
  exit: KernelExit,
  how: { killedAfterMs?: number | undefined },
): EvalkitError {
  if (how.killedAfterMs !== undefined) {
    return new EvalkitError(
      "KERNEL_DIED",
      `the cell did not stop within ${how.killedAfterMs} ms of the interrupt; ${runtimeName} kernel killed, state lost`,
      { killed: true, stateLost: true, ...detailsOf(exit) },
    );
  }
  return new EvalkitError(
    "KERNEL_DIED",
    `${runtimeName} kernel died while the cell was running (${describeHow(exit)}); state lost${summarizeStderr(exit.stderrTail)}`,
    { killed: false, stateLost: true, ...detailsOf(exit) },
  );
}

/**
 * KERNEL_DIED for the cell that was running when its kernel was shut down. Not KERNEL_CLOSED: the cell reached
 * the kernel and may have had effects, so a caller must not run it again as if it never started.
 */
export function describeShutdownDuringCell(runtimeName: string, exit: KernelExit): EvalkitError {
  return new EvalkitError(
    "KERNEL_DIED",
    `the ${runtimeName} kernel was shut down while the cell ran; state lost`,
    {
      killed: false,
      stateLost: true,
      started: true,
      ...detailsOf(exit),
    },
  );
}

/** KERNEL_DIED for a cell that never reached the kernel (not started, or gone): `extra.started` says so. */
export function describeNotRunning(
  runtimeName: string,
  message: string,
  exit: KernelExit | undefined,
  extra: Record<string, unknown>,
): EvalkitError {
  if (exit === undefined)
    return new EvalkitError("KERNEL_DIED", `${runtimeName} ${message} (not started)`, { ...extra });
  return new EvalkitError(
    "KERNEL_DIED",
    `${runtimeName} ${message} (${describeHow(exit)})${summarizeStderr(exit.stderrTail)}`,
    { ...detailsOf(exit), ...extra },
  );
}
