// Reading an artifact back by byte range, with ids validated and unknown ids answered with what exists.
// Through node:fs: in the bundle that touches fs/promises (~1 ms to load) only when an artifact is read.
import { promises as fsPromises } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "zod";
import { EvalkitError } from "../../errors.js";
import { formatArtifactUri, parseArtifactId, resolveArtifactDir } from "./artifact-ids.js";
import { pinsOf, ARTIFACT_SUFFIX as SUFFIX, scanDir } from "./artifact-scan.js";

/** Default number of bytes `readArtifact` returns: 64 KiB. */
export const DEFAULT_READ_LIMIT = 64 * 1024;
/** Largest `limit` accepted by `readArtifact`: 16 MiB. */
export const MAX_READ_LIMIT = 16 * 1024 * 1024;

export interface ReadArtifactOptions {
  /** Byte offset to start at; negative counts from the end (`-1000` = the last 1000 bytes). Default 0. */
  offset?: number;
  /** Most bytes to return (default 64 KiB, at most 16 MiB). */
  limit?: number;
  /** Artifact directory (default `$EVALKIT_HOME/artifacts`). */
  dir?: string;
}

/** A page of an artifact. Offsets are bytes; `nextOffset` is null at the end. */
export interface ArtifactPage {
  id: string;
  uri: string;
  /** The bytes decoded as UTF-8 (invalid bytes shown as U+FFFD). */
  text: string;
  /** The exact bytes of the page. */
  bytes: Uint8Array;
  totalBytes: number;
  offset: number;
  nextOffset: number | null;
}

// Built on the first read, not at import: `import "evalkit"` should not pay for schemas a run may never use.
let readOptionsSchema: z.ZodType<ReadArtifactOptions> | undefined;

function validateReadOptions(options: unknown): ReadArtifactOptions {
  readOptionsSchema ??= z.object({
    offset: z.number().int().optional(),
    limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
    dir: z.string().min(1).optional(),
  });
  const parsed = readOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "options";
  throw new EvalkitError("INVALID_INPUT", `${field}: ${issue?.message ?? "invalid"}`, { field });
}

/**
 * Reads a byte range of an artifact. The page never ends inside a UTF-8 character (it ends before it and
 * `nextOffset` points at it). An unknown id is `ARTIFACT_NOT_FOUND`, listing a few existing ids.
 */
export async function readArtifact(
  idOrUri: string,
  options: ReadArtifactOptions = {},
): Promise<ArtifactPage> {
  const id = parseArtifactId(idOrUri);
  const { offset = 0, limit = DEFAULT_READ_LIMIT, dir: dirOption } = validateReadOptions(options);
  const dir = resolve(dirOption ?? resolveArtifactDir());
  const path = join(dir, id + SUFFIX);
  let handle: Awaited<ReturnType<typeof fsPromises.open>>;
  try {
    handle = await fsPromises.open(path, "r");
  } catch (err) {
    const known = scanDir(dir, pinsOf(dir))
      .slice(0, 5)
      .map((info) => info.id);
    const hint =
      known.length > 0 ? `; recent artifacts: ${known.join(", ")}` : "; the artifact store is empty";
    throw new EvalkitError(
      "ARTIFACT_NOT_FOUND",
      `artifact ${id} not found in ${dir}${hint}`,
      { id, dir, known },
      err,
    );
  }
  try {
    const totalBytes = (await handle.stat()).size;
    const start = offset < 0 ? Math.max(0, totalBytes + offset) : Math.min(offset, totalBytes);
    const want = Math.min(limit, totalBytes - start);
    // Three bytes past the page tell whether the cut falls inside a UTF-8 character.
    const readLength = Math.min(want + 3, totalBytes - start);
    const buffer = Buffer.alloc(readLength);
    let got = 0;
    while (got < readLength) {
      const { bytesRead } = await handle.read(buffer, got, readLength - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const pageLength = Math.min(want, got);
    const end = start + (start + pageLength < totalBytes ? alignToCharStart(buffer, pageLength) : pageLength);
    const bytes = buffer.subarray(0, end - start);
    return {
      id,
      uri: formatArtifactUri(id),
      text: new TextDecoder("utf-8").decode(bytes),
      bytes,
      totalBytes,
      offset: start,
      nextOffset: end < totalBytes ? end : null,
    };
  } finally {
    await handle.close();
  }
}

/** `length` moved back so the page does not end inside a UTF-8 sequence (never down to zero). */
function alignToCharStart(buffer: Buffer, length: number): number {
  let end = length;
  for (let back = 0; back < 3 && end > 1; back++) {
    const next = buffer[end];
    if (next === undefined || (next & 0xc0) !== 0x80) return end;
    end--;
  }
  return (buffer[end]! & 0xc0) !== 0x80 ? end : length;
}
