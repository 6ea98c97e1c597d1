// Size limits on what `evalkit exec` reads (FILE cells, notebooks, --input, stdin): a clear error, exit 2, instead
// of reading /dev/zero or a 5 GB log until the host runs out of memory.
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { UsageError } from "./args.js";

/** Largest single input `evalkit exec` reads: 32 MiB (the MCP server's per-request limit too). */
export const MAX_EXEC_INPUT_BYTES = 32 * 1024 * 1024;

function tooLarge(what: string, limit: number): UsageError {
  const mib = limit / (1024 * 1024);
  return new UsageError(
    `${what}: larger than the ${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB limit of one input; ` +
      "put large data in a file and read it from the cell",
  );
}

/**
 * Reads a file whole, refusing one over `limit` bytes: a regular file by its size before reading, anything
 * else (a FIFO, /dev/zero, /dev/stdin) by stopping once it has yielded more than `limit` bytes.
 */
export function readFileLimited(file: string, what: string, limit = MAX_EXEC_INPUT_BYTES): Buffer {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(err);
    throw new UsageError(`${what} ${JSON.stringify(file)}: cannot read (${reason})`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > limit) throw tooLarge(`${what} ${JSON.stringify(file)}`, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limit + 1 - total));
      const count = readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) break;
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > limit) throw tooLarge(`${what} ${JSON.stringify(file)}`, limit);
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${what} ${JSON.stringify(file)}: cannot read (${String(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Everything a stream yields, refusing more than `limit` bytes (reading stops there). */
export async function readStreamLimited(
  stream: NodeJS.ReadableStream,
  what: string,
  limit = MAX_EXEC_INPUT_BYTES,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    total += bytes.length;
    if (total > limit) throw tooLarge(what, limit);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

/** Refuses a regular file over `limit` bytes before another reader loads it whole (notebooks). */
export function checkFileSize(file: string, what: string, limit = MAX_EXEC_INPUT_BYTES): void {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return;
    size = stat.size;
  } catch {
    return; // the reader reports a missing or unreadable file in its own words
  }
  if (size > limit) throw tooLarge(`${what} ${JSON.stringify(file)}`, limit);
}
