// The runner's wire frames (docs/protocol.md): decoding with validation, and encoding host requests.

import { isAscii } from "node:buffer";
import type { CellUsage } from "../../contracts/cell-result.js";
import { boundDepth, SHALLOW_LINE_CHARS } from "../../contracts/kernel-values.js";
import type { KernelOutput, MimeBundle } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import type {
  CallFrame,
  CancelCallFrame,
  ClearOutputFrame,
  CompleteReplyFrame,
  DoneFrame,
  ErrorFrame,
  InputRequestFrame,
  IsCompleteReplyFrame,
  ProtocolErrorFrame,
  StartedFrame,
  StreamFrame,
} from "../../protocol/runner-frames.js";

export interface ReadyFrame {
  type: "ready";
  pid: number;
  python: string;
  implementation: string;
  executable: string;
  protocol: number;
  cwd: string;
  /** The runner can take checkpoints (docs/checkpoints.md). */
  checkpoints?: boolean;
  /** Names the kernel's checkpoint sockets (what a forked session's relay connects to). */
  checkpointToken?: string;
}

/** A decoded frame: the wire types of src/protocol/ (the schema's), a normalised `ready`, or one this host does not know. */
export type RunnerFrame =
  | ReadyFrame
  | StartedFrame
  | StreamFrame
  | {
      type: "display" | "result";
      id: string;
      bundle: MimeBundle;
      metadata?: Record<string, unknown>;
      displayId?: string;
      update?: boolean;
      executionCount?: number | null;
      /** The execute request's secret, echoed on `result` frames (docs/protocol.md, forged frames). */
      nonce?: string;
    }
  | ClearOutputFrame
  | ErrorFrame
  | DoneFrame
  | CallFrame
  | CancelCallFrame
  | InputRequestFrame
  | IsCompleteReplyFrame
  | CompleteReplyFrame
  | ProtocolErrorFrame
  | { type: "unknown"; raw: Record<string, unknown> };

/** The frame's text for an error message: the line, or (a frame decoded already) its JSON when that can be had. */
type FrameText = string | (() => string);

function fail(reason: string, source: FrameText): never {
  let line: string;
  try {
    line = typeof source === "string" ? source : source();
  } catch {
    line = "(a frame too deep to show)";
  }
  throw new EvalkitError("PROTOCOL_ERROR", `invalid frame from runner: ${reason}`, {
    line: line.length > 200 ? `${line.slice(0, 200)}…` : line,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(frame: Record<string, unknown>, key: string, line: FrameText): string {
  const value = frame[key];
  if (typeof value !== "string") fail(`field "${key}" must be a string`, line);
  return value;
}

/**
 * True when a stream frame's raw line proves its text is printable ASCII plus `\n`/`\t`: JSON must escape
 * every control character (`\uXXXX`, `\r`, `\b`, `\f`), and a line with no byte above 0x7e holds no
 * DEL, non-ASCII character or surrogate either. A few memchr-speed scans instead of a regex over the text.
 */
export function isPlainStreamLine(line: Buffer): boolean {
  return (
    isAscii(line) &&
    line.indexOf(0x7f) === -1 &&
    line.indexOf("\\u") === -1 &&
    line.indexOf("\\r") === -1 &&
    line.indexOf("\\b") === -1 &&
    line.indexOf("\\f") === -1
  );
}

/**
 * A field as text. `String()` of a nested array recurses through `join` (a cell can send one 100,000 levels deep);
 * a container becomes its JSON after the depth cut instead, so nothing here can overflow the stack.
 */
function textOf(value: unknown, fallback: string): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "object") return String(value);
  return JSON.stringify(boundDepth(value)) ?? fallback;
}

/** A numeric field, NaN unless it is a number (`Number()` of a nested array recurses as `String()` does). */
function numberOf(value: unknown): number {
  return typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
}

function nonceOf(frame: Record<string, unknown>): { nonce?: string } {
  return typeof frame.nonce === "string" ? { nonce: frame.nonce } : {};
}

/**
 * Parse one protocol line. Throws PROTOCOL_ERROR for anything that is not a well-formed frame. The values a
 * cell controls (display data and metadata, bridge arguments) come out bounded in depth (contracts/kernel-values.ts).
 */
export function decodeRunnerFrame(line: string): RunnerFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(line);
  } catch {
    fail("not JSON", line);
  }
  // A short line cannot nest deeper than the bound: the common small frame skips the walk.
  return decodeFrameObject(frame, line, line.length > SHALLOW_LINE_CHARS);
}

/**
 * A frame a runner's channel decoded already (the JS kernel's), checked as {@link decodeRunnerFrame} checks a
 * line, without encoding it again.
 */
export function decodeRunnerFrameObject(frame: unknown): RunnerFrame {
  return decodeFrameObject(frame, () => JSON.stringify(frame), true);
}

function decodeFrameObject(frame: unknown, line: FrameText, mayBeDeep: boolean): RunnerFrame {
  const bound = mayBeDeep ? boundDepth : <T>(value: T): T => value;
  if (!isRecord(frame) || typeof frame.type !== "string") fail('not an object with a "type"', line);
  switch (frame.type) {
    case "ready":
      return {
        type: "ready",
        pid: numberOf(frame.pid),
        // Only the Python runner names a Python version: other runners (JS, Perl...) leave it out.
        python: textOf(frame.python, ""),
        implementation: textOf(frame.implementation, "cpython"),
        executable: textOf(frame.executable, ""),
        protocol: numberOf(frame.protocol),
        cwd: textOf(frame.cwd, ""),
        ...(frame.checkpoints === true ? { checkpoints: true } : {}),
        ...(typeof frame.checkpointToken === "string" ? { checkpointToken: frame.checkpointToken } : {}),
      };
    case "started":
      return { type: "started", id: str(frame, "id", line) };
    case "stdout":
    case "stderr":
      return { type: frame.type, id: str(frame, "id", line), data: str(frame, "data", line) };
    case "display":
    case "result": {
      if (!isRecord(frame.bundle)) fail('field "bundle" must be an object', line);
      return {
        type: frame.type,
        id: str(frame, "id", line),
        bundle: bound(frame.bundle),
        ...(isRecord(frame.metadata) ? { metadata: bound(frame.metadata) } : {}),
        ...(typeof frame.displayId === "string" ? { displayId: frame.displayId } : {}),
        ...(frame.update === true ? { update: true } : {}),
        ...(typeof frame.executionCount === "number" ? { executionCount: frame.executionCount } : {}),
        ...nonceOf(frame),
      };
    }
    case "clear_output":
      return { type: "clear_output", id: str(frame, "id", line), wait: frame.wait === true };
    case "error":
      return {
        type: "error",
        id: str(frame, "id", line),
        ename: str(frame, "ename", line),
        evalue: textOf(frame.evalue, ""),
        traceback: Array.isArray(frame.traceback) ? frame.traceback.map((line) => textOf(line, "")) : [],
        ...nonceOf(frame),
      };
    case "done":
      return {
        type: "done",
        id: str(frame, "id", line),
        status: frame.status === "ok" ? "ok" : "error",
        executionCount: typeof frame.executionCount === "number" ? frame.executionCount : null,
        cancelled: frame.cancelled === true,
        ...(isRecord(frame.usage) ? { usage: decodeUsage(frame.usage) } : {}),
        ...nonceOf(frame),
      };
    case "call":
      return {
        type: "call",
        id: str(frame, "id", line),
        callId: str(frame, "callId", line),
        method: str(frame, "method", line),
        params: isRecord(frame.params) ? bound(frame.params) : {},
      };
    case "cancel_call":
      return { type: "cancel_call", id: str(frame, "id", line), callId: str(frame, "callId", line) };
    case "input_request":
      return {
        type: "input_request",
        id: str(frame, "id", line),
        prompt: textOf(frame.prompt, ""),
        password: frame.password === true,
      };
    case "is_complete_reply": {
      const status = frame.status;
      if (status !== "complete" && status !== "incomplete" && status !== "invalid") fail("bad status", line);
      return {
        type: "is_complete_reply",
        id: str(frame, "id", line),
        status,
        indent: textOf(frame.indent, ""),
      };
    }
    case "complete_reply": {
      const matches = Array.isArray(frame.matches) ? frame.matches.filter((m) => typeof m === "string") : [];
      const start = typeof frame.start === "number" && Number.isInteger(frame.start) ? frame.start : 0;
      return { type: "complete_reply", id: str(frame, "id", line), start, matches };
    }
    case "protocol_error":
      return { type: "protocol_error", reason: textOf(frame.reason, "") };
    default:
      return { type: "unknown", raw: frame };
  }
}

/** `usage` of a done frame: non-negative finite numbers, anything else 0 (a runner's bad figure is no crash). */
function decodeUsage(raw: Record<string, unknown>): CellUsage {
  const figure = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
  return { cpuMs: figure(raw.cpuMs), peakRssBytes: Math.round(figure(raw.peakRssBytes)) };
}

/** Serialise a host → runner request as one line. */
export function encodeHostFrame(frame: Record<string, unknown>): string {
  return `${JSON.stringify(frame)}\n`;
}

/** The output a `display` or `result` frame stands for (both runners send the same shape). */
export function outputOfDisplayFrame(
  frame: Extract<RunnerFrame, { type: "display" | "result" }>,
): KernelOutput {
  return {
    type: frame.type,
    data: frame.bundle,
    ...(frame.metadata ? { metadata: frame.metadata } : {}),
    ...(frame.displayId !== undefined ? { displayId: frame.displayId } : {}),
    ...(frame.update ? { update: true as const } : {}),
  };
}
