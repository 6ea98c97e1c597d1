// Keeps evalkit's own images folder ($EVALKIT_HOME/images) bounded: `exec` and the REPL save every image a cell
// shows there, and nothing else ever removed them. A folder the user names (--images DIR) is never pruned.
import { readdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** Images older than this are removed: 7 days, as artifacts. */
export const IMAGE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Past this total the oldest images go first: 256 MiB. */
export const IMAGE_MAX_TOTAL_BYTES = 256 * 1024 * 1024;
/** Images younger than this are kept whatever the total: another process may have just named one. */
export const IMAGE_GRACE_MS = 60 * 1000;

// Only names ImageOutput writes (`<yyyymmdd>-<hhmmss>-<pid>-<n>.<ext>`): anything else in the folder stays.
const IMAGE_NAME = /^\d{8}-\d{6}-\d+-\d+\.(png|jpg|gif|webp|svg|bin)$/;

interface ImageFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Removes expired images, then the oldest ones while the folder is over its budget; returns how many went. */
export function pruneImageDir(
  dir: string,
  limits: { maxAgeMs?: number; maxTotalBytes?: number; graceMs?: number; now?: number } = {},
): number {
  const {
    maxAgeMs = IMAGE_MAX_AGE_MS,
    maxTotalBytes = IMAGE_MAX_TOTAL_BYTES,
    graceMs = IMAGE_GRACE_MS,
  } = limits;
  const now = limits.now ?? Date.now();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const files: ImageFile[] = [];
  for (const name of names) {
    if (!IMAGE_NAME.test(name)) continue;
    const path = join(dir, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats?.isFile()) files.push({ path, size: stats.size, mtimeMs: stats.mtimeMs });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = files.reduce((sum, file) => sum + file.size, 0);
  let removed = 0;
  for (const file of files) {
    const age = now - file.mtimeMs;
    if (age < graceMs) break;
    if (age <= maxAgeMs && total <= maxTotalBytes) break;
    try {
      unlinkSync(file.path);
      removed += 1;
    } catch {
      // Removed by another process meanwhile, or not ours to remove: the next prune tries again.
    }
    total -= file.size;
  }
  return removed;
}
