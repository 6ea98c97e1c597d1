// MCP over stdio with a per-message size limit that answers: a request over the limit gets a JSON-RPC error and
// the server goes on (the SDK's own stdio transport closes the connection at 10 MiB, and the server exits 0).
// A line that is not JSON gets -32700 and one that is not a JSON-RPC message -32600, as JSON-RPC 2.0 says (the
// SDK's transport only reports them to the server's log, so the client waited for an answer that never came).
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** Default largest message accepted from the client: 32 MiB of JSON (one line). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600;
/** JSON-RPC "Parse error": the line is not JSON. */
const PARSE_ERROR = -32700;
/** How much of a bad line an error message quotes. */
const QUOTED_CHARS = 80;

/** Bytes kept from each end of an oversized line, to find its request id without buffering it. */
const EDGE_BYTES = 4096;

// The SDK client writes `id` last (`{"method", "params", "jsonrpc", "id"}`); other clients write it first.
const TAIL_ID = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;

export interface BoundedStdioTransportOptions {
  /** Largest message accepted, in bytes (default 32 MiB). */
  maxMessageBytes?: number;
}

/** Formats a byte count as `32 MiB` / `1.5 KiB`. */
function formatSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  return `${bytes} bytes`;
}

/** The request id of an oversized line, read from its first or last bytes (undefined when not found). */
export function findRequestId(head: string, tail: string): string | number | undefined {
  const match = TAIL_ID.exec(tail) ?? HEAD_ID.exec(head);
  if (!match?.[1]) return undefined;
  try {
    const id = JSON.parse(match[1]) as unknown;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Newline-delimited JSON-RPC on a readable/writable pair, bounded per message. */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly maxBytes: number;
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** Set while an oversized line is being skipped: its size so far and its two ends. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  private isStarted = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    options: BoundedStdioTransportOptions = {},
  ) {
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.isStarted) throw new Error("BoundedStdioTransport already started");
    this.isStarted = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.pieces = [];
    this.pieceBytes = 0;
    this.skipping = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
      this.take(data.subarray(0, nl));
      this.endLine();
      data = data.subarray(nl + 1);
    }
    if (data.length > 0) this.take(data);
  };

  /** Adds bytes of the current line: buffered while under the limit, else only counted (and its ends kept). */
  private take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const skip = this.skipping;
    if (skip !== null) {
      skip.bytes += bytes.length;
      skip.tail = keepLast(Buffer.concat([skip.tail, bytes]), EDGE_BYTES);
      return;
    }
    if (this.pieceBytes + bytes.length <= this.maxBytes) {
      this.pieces.push(bytes);
      this.pieceBytes += bytes.length;
      return;
    }
    const sofar = Buffer.concat([...this.pieces, bytes]);
    this.skipping = {
      bytes: sofar.length,
      head: Buffer.from(sofar.subarray(0, EDGE_BYTES)),
      tail: Buffer.from(keepLast(sofar, EDGE_BYTES)),
    };
    this.pieces = [];
    this.pieceBytes = 0;
  }

  private endLine(): void {
    const skip = this.skipping;
    if (skip !== null) {
      this.skipping = null;
      this.refuse(skip);
      return;
    }
    const line = (this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces))
      .toString("utf8")
      .replace(/\r$/, "");
    this.pieces = [];
    this.pieceBytes = 0;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.answerError(null, PARSE_ERROR, `parse error: the line is not JSON (${reason}): ${quote(line)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuseInvalid(value, line);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /**
   * Answers JSON that is not a JSON-RPC message with -32600, naming the request's id when it has a usable one.
   * A broken response or notification from the client gets no answer (JSON-RPC answers requests only); it
   * only goes to `onerror`, like every refused line.
   */
  private refuseInvalid(value: unknown, line: string): void {
    const record = typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
    const fields = (record ?? {}) as Record<string, unknown>;
    const isResponse =
      record !== undefined && !("method" in fields) && ("result" in fields || "error" in fields);
    const isNotification = record !== undefined && "method" in fields && !("id" in fields);
    const id = typeof fields.id === "string" || typeof fields.id === "number" ? fields.id : null;
    const what = Array.isArray(value)
      ? "a batch (an array); evalkit's MCP server takes one message per line"
      : record === undefined
        ? `${value === null ? "null" : typeof value}, not an object`
        : typeof fields.method !== "string" && !isResponse
          ? 'an object without a "method" string'
          : fields.jsonrpc !== "2.0"
            ? 'an object without "jsonrpc": "2.0"'
            : "an object whose fields do not match a JSON-RPC request";
    const text = `invalid request: the line is JSON but not a JSON-RPC 2.0 message: ${what}: ${quote(line)}`;
    if (isResponse || isNotification) {
      this.onerror?.(new Error(text));
      return;
    }
    this.answerError(id, INVALID_REQUEST, text);
  }

  /** Sends a JSON-RPC error response (`id` null when the request's id is unknown) and reports it to `onerror`. */
  private answerError(id: string | number | null, code: number, text: string): void {
    this.onerror?.(new Error(text));
    void this.send({ jsonrpc: "2.0", id, error: { code, message: text } } as unknown as JSONRPCMessage);
  }

  /** Answers an oversized request with a JSON-RPC error naming the limit; the connection stays open. */
  private refuse(skip: { bytes: number; head: Buffer; tail: Buffer }): void {
    const id = findRequestId(skip.head.toString("utf8"), skip.tail.toString("utf8"));
    const text =
      `request too large: ${skip.bytes} bytes, over evalkit's limit of ${formatSize(this.maxBytes)} per message; ` +
      "send less code per call, or write large data to a file and read it from the cell";
    this.onerror?.(new Error(text));
    const error = { code: INVALID_REQUEST, message: text, data: { bytes: skip.bytes, limit: this.maxBytes } };
    // Without an id (a notification, or one we could not find) JSON-RPC allows the error with no id.
    const response = id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
    void this.send(response as JSONRPCMessage);
  }
}

/** The start of a bad line, for the error message. */
function quote(line: string): string {
  const text = line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
  return JSON.stringify(text);
}

function keepLast(bytes: Buffer, count: number): Buffer {
  return bytes.length <= count ? bytes : bytes.subarray(bytes.length - count);
}
