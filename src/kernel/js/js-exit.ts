// Why a JS kernel did not start or ended while a cell ran, in words: the errors JsKernel's callers get.
import { EvalkitError } from "../../errors.js";
import type { KernelExit } from "../kernel.js";

/** KERNEL_START_FAILED for a kernel that never sent `ready`, with what it wrote to stderr. */
export function describeJsStartFailure(err: unknown, stderr: string): EvalkitError {
  const detail = stderr.trim();
  return new EvalkitError(
    "KERNEL_START_FAILED",
    `the JS kernel did not start: ${(err as Error).message}${detail ? `\n${detail}` : ""}`,
    { stderrTail: stderr },
    err,
  );
}

/** KERNEL_DIED for the cell that was running when the process ended; `interruptGraceMs` names a kill we asked for. */
export function describeJsDeath(exit: KernelExit, interruptGraceMs: number): EvalkitError {
  const details = {
    killed: exit.requested,
    stateLost: true,
    exitCode: exit.exitCode,
    signal: exit.signal,
    stderrTail: exit.stderrTail,
    ...(exit.cause ? { cause: exit.cause, outOfMemory: exit.outOfMemory === true } : {}),
    exit,
  };
  const how = exit.cause ?? (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`);
  const message = exit.requested
    ? `the cell did not stop within ${interruptGraceMs} ms of the interrupt; JS kernel killed, state lost`
    : `the JS kernel ended (${how}) while the cell ran; state lost`;
  return new EvalkitError("KERNEL_DIED", message, details);
}
