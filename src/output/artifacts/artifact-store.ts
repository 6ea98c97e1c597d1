// Where full outputs live: `$EVALKIT_HOME/artifacts/<id>.out`, written synchronously, read back by byte range,
// pruned by age and total size, never while pinned by this process or leased by another one.
import { closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { EvalkitError } from "../../errors.js";
import {
  formatArtifactUri,
  generateArtifactId,
  parseArtifactId,
  resolveArtifactDir,
} from "./artifact-ids.js";
import { dropLease, leasedIds, takeLease } from "./artifact-leases.js";
import { type ArtifactPage, type ReadArtifactOptions, readArtifact } from "./artifact-read.js";
import {
  type ArtifactInfo,
  lastPruneByDir,
  pinsOf,
  ARTIFACT_SUFFIX as SUFFIX,
  scanDir,
} from "./artifact-scan.js";
import { makeDirectory } from "./make-directory.js";

export {
  type ArtifactPage,
  DEFAULT_READ_LIMIT,
  MAX_READ_LIMIT,
  type ReadArtifactOptions,
  readArtifact,
} from "./artifact-read.js";
export type { ArtifactInfo } from "./artifact-scan.js";

/** Default age after which an unpinned artifact is pruned: 7 days. */
export const DEFAULT_ARTIFACT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Default cap on the total size of the artifact directory: 1 GiB. */
export const DEFAULT_ARTIFACT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
/** Default minimum time between two automatic prunes of one directory: 10 minutes. */
export const DEFAULT_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Default age under which no artifact is pruned (protects other processes' fresh artifacts): 60 s. */
export const DEFAULT_PRUNE_GRACE_MS = 60 * 1000;
/** An artifact being written prunes the directory each time it grows by this much, so a flood keeps the budget. */
export const PRUNE_EVERY_WRITTEN_BYTES = 64 * 1024 * 1024;

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

  // In memory for this process's own checks; on disk (a lease) for every other process sharing the directory.
  const pin = (id: string) => {
    const key = parseArtifactId(id);
    const count = pins.get(key) ?? 0;
    pins.set(key, count + 1);
    if (count === 0) takeLease(dir, key);
  };
  const unpin = (id: string) => {
    const key = parseArtifactId(id);
    const count = (pins.get(key) ?? 0) - 1;
    if (count > 0) pins.set(key, count);
    else if (pins.delete(key)) dropLease(dir, key);
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
    const leased = leasedIds(dir);
    const isHeld = (info: ArtifactInfo) => info.isPinned || leased.has(info.id);
    for (const info of scanDir(dir, pins)) {
      const age = time - info.modifiedMs;
      if (!isHeld(info) && age > graceMs && age > maxAgeMs && removeFile(info.path)) removed.push(info.id);
      else kept.push(info);
    }
    // Every process's artifacts count, so the budget is the directory's, however many processes write to it.
    let total = kept.reduce((sum, info) => sum + info.sizeBytes, 0);
    for (let i = kept.length - 1; i >= 0 && total > maxTotalBytes; i--) {
      const info = kept[i]!;
      // A grace of 0 is none: a file written this millisecond can carry an mtime a little after `time`.
      if (isHeld(info) || (graceMs > 0 && time - info.modifiedMs <= graceMs)) continue;
      if (removeFile(info.path)) {
        removed.push(info.id);
        total -= info.sizeBytes;
      }
    }
    return { removed, remainingBytes: total };
  };

  const create = (): ArtifactWriter => {
    makeDirectory(dir, 0o700);
    const id = generateArtifactId();
    const path = join(dir, id + SUFFIX);
    const fd = openSync(path, "wx", 0o600);
    pin(id);
    let bytesWritten = 0;
    let nextPruneAt = PRUNE_EVERY_WRITTEN_BYTES;
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
        if (bytesWritten >= nextPruneAt) {
          nextPruneAt = bytesWritten + PRUNE_EVERY_WRITTEN_BYTES;
          prune({ force: true });
        }
      },
      close() {
        // Not limited by the interval: other processes may have filled the directory since the last prune.
        if (finish()) prune({ force: true });
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
