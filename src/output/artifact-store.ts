// Where full outputs live: `$EVALKIT_HOME/artifacts/<id>.out`, written synchronously, read back by byte range,
// pruned by age and total size, never while pinned.
import { closeSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { EvalkitError } from "../errors.js";
import {
  formatArtifactUri,
  generateArtifactId,
  parseArtifactId,
  resolveArtifactDir,
} from "./artifact-ids.js";

/** Default age after which an unpinned artifact is pruned: 7 days. */
export const DEFAULT_ARTIFACT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Default cap on the total size of the artifact directory: 1 GiB. */
export const DEFAULT_ARTIFACT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
/** Default minimum time between two automatic prunes of one directory: 10 minutes. */
export const DEFAULT_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Default age under which no artifact is pruned (protects other processes' fresh artifacts): 60 s. */
export const DEFAULT_PRUNE_GRACE_MS = 60 * 1000;
/** Default number of bytes `readArtifact` returns: 64 KiB. */
export const DEFAULT_READ_LIMIT = 64 * 1024;
/** Largest `limit` accepted by `readArtifact`: 16 MiB. */
export const MAX_READ_LIMIT = 16 * 1024 * 1024;

const SUFFIX = ".out";

export interface ArtifactStoreOptions {
  /** Directory; default `$EVALKIT_HOME/artifacts` (EVALKIT_HOME defaults to `~/.evalkit`). */
  dir?: string;
  maxAgeMs?: number;
  maxTotalBytes?: number;
  pruneIntervalMs?: number;
  graceMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** Environment used to find EVALKIT_HOME (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** One stored artifact. */
export interface ArtifactInfo {
  id: string;
  uri: string;
  path: string;
  sizeBytes: number;
  modifiedMs: number;
  isPinned: boolean;
}

/** An artifact being written; it is pinned until `close()` or `discard()`. */
export interface ArtifactWriter {
  readonly id: string;
  readonly uri: string;
  readonly path: string;
  readonly bytesWritten: number;
  write(bytes: Uint8Array): void;
  close(): void;
  /** Closes and deletes the file. */
  discard(): void;
}

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

export interface PruneResult {
  removed: string[];
  remainingBytes: number;
}

export interface ArtifactStore {
  readonly dir: string;
  create(): ArtifactWriter;
  read(idOrUri: string, options?: Omit<ReadArtifactOptions, "dir">): Promise<ArtifactPage>;
  list(): ArtifactInfo[];
  /** Protects an artifact from pruning (reference-counted: pin twice, unpin twice). */
  pin(id: string): void;
  unpin(id: string): void;
  isPinned(id: string): boolean;
  /** Prunes now (`force`) or only if the last prune of this directory is older than the interval. */
  prune(options?: { force?: boolean }): PruneResult;
  remove(id: string): boolean;
}

/** Pins are per directory and shared by every store instance of this process. */
const pinsByDir = new Map<string, Map<string, number>>();
const lastPruneByDir = new Map<string, number>();

function pinsOf(dir: string): Map<string, number> {
  let pins = pinsByDir.get(dir);
  if (pins === undefined) {
    pins = new Map();
    pinsByDir.set(dir, pins);
  }
  return pins;
}

const readOptionsSchema = z.object({
  offset: z.number().int().optional(),
  limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
  dir: z.string().min(1).optional(),
});

function validateReadOptions(options: unknown): ReadArtifactOptions {
  const parsed = readOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "options";
  throw new EvalkitError("INVALID_INPUT", `${field}: ${issue?.message ?? "invalid"}`, { field });
}

/** Lists `<id>.out` files, newest first. */
function scanDir(dir: string, pins: Map<string, number>): ArtifactInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const infos: ArtifactInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(SUFFIX)) continue;
    const id = name.slice(0, -SUFFIX.length);
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (!stat.isFile()) continue;
      const isPinned = (pins.get(id) ?? 0) > 0;
      infos.push({
        id,
        uri: formatArtifactUri(id),
        path,
        sizeBytes: stat.size,
        modifiedMs: stat.mtimeMs,
        isPinned,
      });
    } catch {
      // Removed by another process between readdir and stat.
    }
  }
  return infos.sort((a, b) => b.modifiedMs - a.modifiedMs);
}

function removeFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Creates a store; prunes the directory at once when its last prune is older than the interval. */
export function createArtifactStore(options: ArtifactStoreOptions = {}): ArtifactStore {
  const dir = resolve(options.dir ?? resolveArtifactDir(options.env));
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_ARTIFACT_MAX_AGE_MS;
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_ARTIFACT_MAX_TOTAL_BYTES;
  const pruneIntervalMs = options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS;
  const graceMs = options.graceMs ?? DEFAULT_PRUNE_GRACE_MS;
  const now = options.now ?? Date.now;
  const pins = pinsOf(dir);

  const pin = (id: string) => {
    const key = parseArtifactId(id);
    pins.set(key, (pins.get(key) ?? 0) + 1);
  };
  const unpin = (id: string) => {
    const key = parseArtifactId(id);
    const count = (pins.get(key) ?? 0) - 1;
    if (count > 0) pins.set(key, count);
    else pins.delete(key);
  };

  const prune = (pruneOptions: { force?: boolean } = {}): PruneResult => {
    const time = now();
    const last = lastPruneByDir.get(dir);
    if (!pruneOptions.force && last !== undefined && time - last < pruneIntervalMs) {
      return { removed: [], remainingBytes: -1 };
    }
    lastPruneByDir.set(dir, time);
    const removed: string[] = [];
    const kept: ArtifactInfo[] = [];
    for (const info of scanDir(dir, pins)) {
      const age = time - info.modifiedMs;
      if (!info.isPinned && age > graceMs && age > maxAgeMs && removeFile(info.path)) removed.push(info.id);
      else kept.push(info);
    }
    let total = kept.reduce((sum, info) => sum + info.sizeBytes, 0);
    for (let i = kept.length - 1; i >= 0 && total > maxTotalBytes; i--) {
      const info = kept[i]!;
      if (info.isPinned || time - info.modifiedMs <= graceMs) continue;
      if (removeFile(info.path)) {
        removed.push(info.id);
        total -= info.sizeBytes;
      }
    }
    return { removed, remainingBytes: total };
  };

  const create = (): ArtifactWriter => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const id = generateArtifactId();
    const path = join(dir, id + SUFFIX);
    const fd = openSync(path, "wx", 0o600);
    pin(id);
    let bytesWritten = 0;
    let isOpen = true;
    const finish = () => {
      if (!isOpen) return false;
      isOpen = false;
      closeSync(fd);
      unpin(id);
      return true;
    };
    return {
      id,
      uri: formatArtifactUri(id),
      path,
      get bytesWritten() {
        return bytesWritten;
      },
      write(bytes) {
        if (!isOpen) throw new EvalkitError("INTERNAL", `artifact ${id} is closed`);
        let done = 0;
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
        bytesWritten += bytes.length;
      },
      close() {
        if (finish()) prune();
      },
      discard() {
        finish();
        removeFile(path);
      },
    };
  };

  const store: ArtifactStore = {
    dir,
    create,
    read: (idOrUri, readOptions = {}) => readArtifact(idOrUri, { ...readOptions, dir }),
    list: () => scanDir(dir, pins),
    pin,
    unpin,
    isPinned: (id) => (pins.get(parseArtifactId(id)) ?? 0) > 0,
    prune,
    remove: (id) => removeFile(join(dir, parseArtifactId(id) + SUFFIX)),
  };
  prune();
  return store;
}

/** Lists the artifacts of a directory (default `$EVALKIT_HOME/artifacts`), newest first. */
export function listArtifacts(options: { dir?: string } = {}): ArtifactInfo[] {
  const dir = resolve(options.dir ?? resolveArtifactDir());
  return scanDir(dir, pinsOf(dir));
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
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
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
