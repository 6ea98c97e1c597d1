// The end of a file that may be hundreds of MB (an artifact): read from its end, never whole.
import { closeSync, openSync, readSync, statSync } from "node:fs";

/** The last `bytes` bytes of `file`, as UTF-8. */
export function tailOf(file: string, bytes: number): string {
  const size = statSync(file).size;
  const buffer = Buffer.alloc(Math.min(bytes, size));
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}
