// Random tokens as text (per-request secrets, kernel tags, artifact and job ids) cut from a pooled buffer of CSPRNG bytes: one refill
// per 4 KiB instead of one call per token (each call costs ~10 µs on small VMs, on every warm cell).
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;
let isUrandomUsable = process.platform === "linux";

/**
 * Fills `buffer` with CSPRNG bytes. On Linux they come from /dev/urandom (the kernel's CSPRNG, which OpenSSL
 * seeds from too): loading node:crypto costs ~2 ms of a ~90 ms `evalkit exec`, for a few bytes per cell.
 * Elsewhere, or when /dev/urandom cannot be read, from node:crypto, loaded then.
 */
function fillRandom(buffer: Buffer): Buffer {
  if (isUrandomUsable) {
    try {
      const fd = openSync("/dev/urandom", "r");
      try {
        let filled = 0;
        while (filled < buffer.length) {
          const read = readSync(fd, buffer, filled, buffer.length - filled, null);
          if (read <= 0) throw new Error("short read from /dev/urandom");
          filled += read;
        }
        return buffer;
      } finally {
        closeSync(fd);
      }
    } catch {
      isUrandomUsable = false;
    }
  }
  const { randomFillSync } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return randomFillSync(buffer);
}

/** Where the next `bytes` of the pool start, refilling it when they would run past its end. */
function reserve(bytes: number): number {
  if (offset + bytes > POOL_BYTES) {
    fillRandom(pool);
    offset = 0;
  }
  const start = offset;
  offset += bytes;
  return start;
}

/** `bytes` fresh random bytes as hex; bytes are never handed out twice. */
export function createRandomToken(bytes: number): string {
  if (bytes > POOL_BYTES) return fillRandom(Buffer.alloc(bytes)).toString("hex");
  const start = reserve(bytes);
  return pool.toString("hex", start, start + bytes);
}

/** `bytes` fresh random bytes as URL-safe base64 (`A–Z a–z 0–9 - _`). */
export function createRandomId(bytes: number): string {
  if (bytes > POOL_BYTES) return fillRandom(Buffer.alloc(bytes)).toString("base64url");
  const start = reserve(bytes);
  return pool.toString("base64url", start, start + bytes);
}
