// The one host-side error type: every failure evalkit throws carries a stable `code` callers can branch on.

/** Stable error codes. Never parse `message`; branch on `code`. */
export type EvalkitErrorCode =
  | "INVALID_INPUT"
  | "PYTHON_NOT_FOUND"
  | "LAUNCHER_NOT_FOUND"
  | "LAUNCHER_FAILED"
  | "PYTHON_TOO_OLD"
  | "PYTHON_UNAVAILABLE"
  | "JS_UNAVAILABLE"
  | "KERNEL_START_FAILED"
  | "KERNEL_DIED"
  | "KERNEL_CRASH_LOOP"
  | "KERNEL_BUSY"
  | "KERNEL_CLOSED"
  | "PROTOCOL_ERROR"
  | "ARTIFACT_NOT_FOUND"
  | "CWD_INVALID"
  | "SANDBOX_UNAVAILABLE"
  | "ABORTED"
  | "DISPOSED"
  | "SESSION_BUSY"
  | "JOB_NOT_FOUND"
  | "CHECKPOINTS_UNSUPPORTED"
  | "CHECKPOINT_NOT_FOUND"
  | "CHECKPOINT_FAILED"
  | "JUPYTER_UNREACHABLE"
  | "JUPYTER_REFUSED"
  | "JUPYTER_ERROR"
  | "INTERNAL";

/** Extra facts attached to an error (exit code, stderr tail, offending field...). */
export interface EvalkitErrorDetails {
  [key: string]: unknown;
}

/** The single error class evalkit throws. A Python exception inside a cell is a result, never this. */
export class EvalkitError extends Error {
  readonly code: EvalkitErrorCode;
  readonly details: EvalkitErrorDetails;

  constructor(code: EvalkitErrorCode, message: string, details: EvalkitErrorDetails = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "EvalkitError";
    this.code = code;
    this.details = details;
  }
}

/** True when `err` is an EvalkitError, optionally with the given code. */
export function isEvalkitError(err: unknown, code?: EvalkitErrorCode): err is EvalkitError {
  return err instanceof EvalkitError && (code === undefined || err.code === code);
}
