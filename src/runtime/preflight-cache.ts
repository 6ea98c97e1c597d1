// Remembers successful preflights: in-process (a Map) and across processes in $EVALKIT_HOME/cache, keyed by file identity.
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeDirectory } from "../output/artifacts/make-directory.js";
import type { PreflightInfo } from "./preflight.js";

/** The stored part of a preflight answer. */
export type CachedPreflight = Omit<PreflightInfo, "durationMs" | "cached">;

const DISK_CACHE_VERSION = 1;
const DISK_CACHE_LIMIT = 64;

const memory = new Map<string, CachedPreflight>();
const loadedFiles = new Set<string>();

/** Forgets every cached preflight held in this process (the disk file stays; see docs/runtime.md). */
export function clearPreflightCache(): void {
  memory.clear();
  loadedFiles.clear();
}

/**
 * The cache key of a candidate: its path plus the identity of the file it points at. A rebuilt or upgraded
 * interpreter changes mtime/size/inode, so it is checked again instead of staying "valid" forever.
 */
export function preflightCacheKey(candidate: string): string | undefined {
  try {
    const stat = statSync(candidate);
    return [candidate, realpathSync(candidate), stat.mtimeMs, stat.size, stat.ino].join("\0");
  } catch {
    return undefined;
  }
}

function isCachedPreflight(value: unknown): value is CachedPreflight {
  const v = value as CachedPreflight;
  return (
    typeof v === "object" &&
    v !== null &&
    v.ok === true &&
    typeof v.executable === "string" &&
    typeof v.version === "string" &&
    typeof v.implementation === "string" &&
    Array.isArray(v.versionTuple) &&
    v.versionTuple.length === 3 &&
    v.versionTuple.every((n) => typeof n === "number")
  );
}

function readDiskEntries(file: string): Array<[string, CachedPreflight]> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { version?: number; entries?: unknown };
    if (parsed.version !== DISK_CACHE_VERSION || !Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(
      (entry): entry is [string, CachedPreflight] =>
        Array.isArray(entry) && typeof entry[0] === "string" && isCachedPreflight(entry[1]),
    );
  } catch {
    return [];
  }
}

/** The cached answer for `key`, looking in memory first and then (once per process) in `diskFile`. */
export function lookupPreflight(key: string, diskFile: string | undefined): CachedPreflight | undefined {
  const hit = memory.get(key);
  if (hit !== undefined || diskFile === undefined || loadedFiles.has(diskFile)) return hit;
  loadedFiles.add(diskFile);
  for (const [k, v] of readDiskEntries(diskFile)) if (!memory.has(k)) memory.set(k, v);
  return memory.get(key);
}

/** Stores a successful answer in memory and, best effort, in `diskFile` (a read-only home is not an error). */
export function storePreflight(key: string, info: CachedPreflight, diskFile: string | undefined): void {
  memory.set(key, info);
  if (diskFile === undefined) return;
  try {
    const entries = readDiskEntries(diskFile).filter(([k]) => k !== key);
    entries.push([key, info]);
    makeDirectory(path.dirname(diskFile));
    const tmp = `${diskFile}.${process.pid}.tmp`;
    writeFileSync(
      tmp,
      JSON.stringify({ version: DISK_CACHE_VERSION, entries: entries.slice(-DISK_CACHE_LIMIT) }),
    );
    renameSync(tmp, diskFile);
  } catch {
    // The disk cache only saves time; failing to write it must never fail a resolution.
  }
}
