// Why a JS kernel did not start, in words (a death while a cell runs is the client's: exit-classification.ts).
import { EvalkitError } from "../../errors.js";

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
