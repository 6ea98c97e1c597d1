// Splits a byte stream into newline-terminated lines with a hard length bound, whatever the chunking.

import { EvalkitError } from "../../errors.js";

/** Default bound on one protocol line: an image frame is a few MB; anything near this is an attack or a bug. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Incremental NDJSON line splitter: feed chunks, get complete lines (without the `\n`). */
export class LineReader {
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private readonly maxLineBytes: number;

  constructor(maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.maxLineBytes = maxLineBytes;
  }

  /** Feed a chunk; returns the lines it completed. Throws PROTOCOL_ERROR when a line exceeds the bound. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    let newline = chunk.indexOf(10, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      if (this.pendingBytes + piece.length > this.maxLineBytes) this.overflow(piece.length);
      if (this.chunks.length > 0) {
        this.chunks.push(piece);
        lines.push(Buffer.concat(this.chunks, this.pendingBytes + piece.length));
        this.chunks = [];
        this.pendingBytes = 0;
      } else {
        lines.push(piece);
      }
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.pendingBytes + rest.length > this.maxLineBytes) this.overflow(rest.length);
      this.chunks.push(rest);
      this.pendingBytes += rest.length;
    }
    return lines;
  }

  /** Bytes of an unfinished line held right now. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private overflow(extra: number): never {
    const seen = this.pendingBytes + extra;
    this.chunks = [];
    this.pendingBytes = 0;
    throw new EvalkitError("PROTOCOL_ERROR", `protocol line longer than ${this.maxLineBytes} bytes`, {
      lineBytes: seen,
      maxLineBytes: this.maxLineBytes,
    });
  }
}
