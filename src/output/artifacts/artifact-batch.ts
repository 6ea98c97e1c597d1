// Gathers one stream's artifact bytes into large writes, up to the artifact's cap; keeps the first write error.
import type { ArtifactWriter } from "./artifact-store.js";

/** Most bytes held before a write (a write per 32 KB protocol chunk was ~1,600 system calls per 50 MB). */
export const ARTIFACT_BATCH_BYTES = 256 * 1024;

export class ArtifactBatch {
  private buffer: Buffer | null = null;
  private used = 0;
  /** Bytes taken, written or held: what the cap is checked against. */
  private taken = 0;
  /** Why a write failed; nothing more is written after one. */
  error: string | null = null;

  constructor(
    private readonly writer: ArtifactWriter,
    private readonly cap: number,
  ) {}

  /** Takes bytes (copied: they may live in a scratch buffer); past the cap the rest is dropped. */
  append(bytes: Uint8Array): void {
    if (this.error !== null) return;
    const room = this.cap - this.taken;
    if (room <= 0) return;
    const piece = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.taken += piece.length;
    if (this.used + piece.length > ARTIFACT_BATCH_BYTES) this.flush();
    if (piece.length >= ARTIFACT_BATCH_BYTES) {
      this.write(piece);
      return;
    }
    this.buffer ??= Buffer.allocUnsafe(ARTIFACT_BATCH_BYTES);
    this.buffer.set(piece, this.used);
    this.used += piece.length;
  }

  /** Takes text of single-byte characters (plain ASCII) straight into the batch: no encoded copy on the way. */
  appendLatin1(text: string): void {
    if (this.error !== null) return;
    const room = this.cap - this.taken;
    if (room <= 0) return;
    const piece = text.length <= room ? text : text.slice(0, room);
    if (this.used + piece.length > ARTIFACT_BATCH_BYTES) this.flush();
    if (piece.length >= ARTIFACT_BATCH_BYTES) {
      this.append(Buffer.from(piece, "latin1"));
      return;
    }
    this.taken += piece.length;
    this.buffer ??= Buffer.allocUnsafe(ARTIFACT_BATCH_BYTES);
    this.used += this.buffer.write(piece, this.used, piece.length, "latin1");
  }

  /** Writes what is held (before the artifact is closed or read). */
  flush(): void {
    if (this.used === 0 || this.buffer === null) return;
    const count = this.used;
    this.used = 0;
    this.write(this.buffer.subarray(0, count));
  }

  private write(bytes: Uint8Array): void {
    if (this.error !== null) return;
    try {
      this.writer.write(bytes);
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }
}
