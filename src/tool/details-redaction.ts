// What outputs look like in `details`: every string redacted (object keys too), and errors bounded so one huge
// exception is not copied into details whole.
import { MAX_VALUE_DEPTH, TOO_DEEP_MARKER } from "../contracts/kernel-values.js";
import { type CellErrorInfo, STATUS_MIME } from "../contracts/outputs.js";
import type { Redactor } from "../output/streams/redact.js";
import { clampLine, keepEnds } from "../text/text-lines.js";

/** Longest error string kept in `details` (the cell's text and artifact keep the whole traceback). */
export const MAX_ERROR_FIELD_CHARS = 64 * 1024;

/** Traceback lines kept in `details` from each end of a longer traceback (a message of 500,000 lines). */
export const MAX_TRACEBACK_EDGE_LINES = 100;

/**
 * A redacted copy of a JSON-like value; strings under an `image/*` key are base64 payloads and stay as they are.
 * Values from kernels arrive bounded in depth (runner-frames.ts); anything deeper that reaches here anyway is cut
 * at the same bound, so the walk's recursion can never reach the end of the stack.
 */
export function redactDeep(value: unknown, redact: Redactor, key = "", depth = 0): unknown {
  if (typeof value === "string") return isBinaryImage(key) ? value : redact(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_VALUE_DEPTH) return TOO_DEEP_MARKER;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, "", depth + 1));
  const out: Record<string, unknown> = {};
  // Keys too: `{"<token>": ...}` is as much a leak as a value. A bundle's common MIME types (its top-level keys)
  // are no one's secret: left as they are, a short result (`2`) never needs the call's secrets read.
  for (const [k, v] of Object.entries(value)) {
    const safeKey = depth === 0 && COMMON_MIME_TYPES.has(k) ? k : redact(k);
    out[safeKey] = redactDeep(v, redact, k, depth + 1);
  }
  return out;
}

const COMMON_MIME_TYPES = new Set([
  "text/plain",
  "text/html",
  "text/markdown",
  "text/latex",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/svg+xml",
  "application/json",
  "application/javascript",
  STATUS_MIME,
]);

/** Image MIME types whose values are base64 bytes: SVG (`image/svg+xml`) is text and is redacted like any text. */
function isBinaryImage(mime: string): boolean {
  return (
    mime.startsWith("image/") && !mime.includes("svg") && !mime.endsWith("+xml") && !mime.endsWith("+json")
  );
}

/**
 * An error for `details`: redacted, each string clamped, and a very long traceback cut to its first and last
 * lines (a 12 MB exception message must not be copied into details twice).
 */
export function boundErrorInfo(error: CellErrorInfo, redact: Redactor): CellErrorInfo {
  const bound = (text: string) => redact(clampLine(text, MAX_ERROR_FIELD_CHARS));
  const traceback = keepEnds(
    error.traceback,
    MAX_TRACEBACK_EDGE_LINES,
    (count) => `… ${count} traceback lines left out (the cell's text and artifact have them all)`,
  ).map(bound);
  return { ename: bound(error.ename), evalue: bound(error.evalue), traceback };
}
