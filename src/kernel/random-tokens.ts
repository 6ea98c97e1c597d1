// Random hex tokens (per-request secrets, kernel tags) cut from a pooled buffer of CSPRNG bytes: one
// randomFillSync per 4 KiB instead of one per token (each call costs ~10 µs on small VMs, on every warm cell).
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `bytes` fresh random bytes as hex; bytes are never handed out twice. */
export function createRandomToken(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString("hex");
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const token = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return token;
}
