// Pins on disk: `<dir>/.leases/<id>.<pid>` tells every process sharing the directory that a live process still
// references an artifact, so no process prunes it; a lease whose process is gone is stale and removed.
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirectory } from "./make-directory.js";

const LEASE_DIR = ".leases";

/** The directories this process holds leases in, with the ids leased there (for the clean-up at exit). */
const heldByDir = new Map<string, Set<string>>();
let isExitHookInstalled = false;

/**
 * What tells this process apart from a later one that reuses its pid: the start time in clock ticks
 * (`/proc/<pid>/stat`, field 22) on Linux, empty where there is no `/proc`.
 */
function startToken(pid: number | "self"): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? "";
  } catch {
    return "";
  }
}

let ownToken: string | undefined;

function isLeaseHolderAlive(pid: number, token: string): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive, owned by another user.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A recorded start time that no longer matches means the pid now belongs to another process.
  if (token === "") return true;
  const now = startToken(pid);
  return now === "" || now === token;
}

function leasePath(dir: string, id: string, pid: number): string {
  return join(dir, LEASE_DIR, `${id}.${pid}`);
}

function removeOwnLeases(): void {
  for (const [dir, ids] of heldByDir) {
    for (const id of ids) {
      try {
        unlinkSync(leasePath(dir, id, process.pid));
      } catch {
        // already gone
      }
    }
  }
  heldByDir.clear();
}

/** Records on disk that this process references `id`. Best effort: a directory that cannot be written has no artifacts either. */
export function takeLease(dir: string, id: string): void {
  ownToken ??= startToken("self");
  try {
    makeDirectory(join(dir, LEASE_DIR), 0o700);
    writeFileSync(leasePath(dir, id, process.pid), ownToken, { mode: 0o600 });
  } catch {
    return;
  }
  let ids = heldByDir.get(dir);
  if (ids === undefined) {
    ids = new Set();
    heldByDir.set(dir, ids);
  }
  ids.add(id);
  if (!isExitHookInstalled) {
    isExitHookInstalled = true;
    // A normal exit leaves no lease behind; after a crash the lease is found stale (its pid is gone).
    process.once("exit", removeOwnLeases);
  }
}

/** Removes this process's lease on `id`. */
export function dropLease(dir: string, id: string): void {
  heldByDir.get(dir)?.delete(id);
  try {
    unlinkSync(leasePath(dir, id, process.pid));
  } catch {
    // never taken, or already gone
  }
}

/** Ids leased by a live process (this one included); stale leases found on the way are removed. */
export function leasedIds(dir: string): Set<string> {
  const leased = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(join(dir, LEASE_DIR));
  } catch {
    return leased;
  }
  const alive = new Map<string, boolean>();
  for (const name of names) {
    const dot = name.lastIndexOf(".");
    const pid = Number(name.slice(dot + 1));
    if (dot <= 0 || !Number.isInteger(pid) || pid <= 0) continue;
    const id = name.slice(0, dot);
    const path = join(dir, LEASE_DIR, name);
    let token: string;
    try {
      token = readFileSync(path, "utf8");
    } catch {
      continue; // dropped meanwhile
    }
    const key = `${pid}:${token}`;
    let isAlive = alive.get(key);
    if (isAlive === undefined) {
      isAlive = isLeaseHolderAlive(pid, token);
      alive.set(key, isAlive);
    }
    if (isAlive) leased.add(id);
    else {
      try {
        unlinkSync(path);
      } catch {
        // another process cleaned it first
      }
    }
  }
  return leased;
}
