// Interpreters a sandboxed cell could have written (inside the cwd or a writable path) are never run on the host.
import { realpathSync } from "node:fs";
import path from "node:path";
import type { PythonCandidate } from "./python-candidates.js";
import { isCovered } from "./sandbox-guard.js";

/**
 * Each root in its written and its real spelling: a cwd reached through a symlink is the same directory.
 */
export function expandRoots(roots: readonly string[]): string[] {
  const all = new Set<string>();
  for (const root of roots) {
    all.add(path.resolve(root));
    all.add(realOrSelf(root));
  }
  return [...all].filter((root) => root !== "/");
}

/**
 * True when running `candidate` could run what a cell wrote: the file, its real target, its directory's real
 * location or its venv (whose site-packages `.pth` files run at start-up) lies inside one of `roots`.
 */
export function isUntrustedCandidate(
  candidate: string,
  venv: string | undefined,
  roots: readonly string[],
): boolean {
  if (roots.length === 0) return false;
  const absolute = path.resolve(candidate);
  const spellings = [
    absolute,
    realOrSelf(absolute),
    path.join(realOrSelf(path.dirname(absolute)), path.basename(absolute)),
  ];
  if (venv !== undefined) spellings.push(path.resolve(venv), realOrSelf(venv));
  return spellings.some((p) => isCovered(p, roots));
}

/**
 * The search's list with sandbox-writable candidates turned into absences that say why (the explicit one is
 * kept but marked: it runs only inside the sandbox, never in a preflight on the host).
 */
export function withoutUntrusted(list: PythonCandidate[], roots: readonly string[]): PythonCandidate[] {
  if (roots.length === 0) return list;
  return list.map((entry) => {
    if (entry.candidate === undefined || !isUntrustedCandidate(entry.candidate, entry.venv, roots))
      return entry;
    if (entry.source === "explicit") return { ...entry, isUntrusted: true };
    return {
      source: entry.source,
      origin: entry.origin,
      absentReason: `${entry.candidate} is skipped: it lies in a directory the sandbox can write, so a cell could have put it there (name it with --python / the python option to run it inside the sandbox only)`,
    };
  });
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
