// The artifact directory as it is now: which `<id>.out` files exist, and which ids this process has pinned.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { formatArtifactUri } from "./artifact-ids.js";

/** File name suffix of an artifact: `<id>.out`. */
export const ARTIFACT_SUFFIX = ".out";
const SUFFIX = ARTIFACT_SUFFIX;

/** One stored artifact. */
export interface ArtifactInfo {
  id: string;
  uri: string;
  path: string;
  sizeBytes: number;
  modifiedMs: number;
  isPinned: boolean;
}

/** Pins are per directory and shared by every store instance of this process. */
export const pinsByDir = new Map<string, Map<string, number>>();
export const lastPruneByDir = new Map<string, number>();

export function pinsOf(dir: string): Map<string, number> {
  let pins = pinsByDir.get(dir);
  if (pins === undefined) {
    pins = new Map();
    pinsByDir.set(dir, pins);
  }
  return pins;
}

/** Lists `<id>.out` files, newest first. */
export function scanDir(dir: string, pins: Map<string, number>): ArtifactInfo[] {
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
