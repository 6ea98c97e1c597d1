// A call's working directory: its real path, checked to exist, cached briefly for warm calls.
import { realpathSync, statSync } from "node:fs";
import { EvalkitError } from "../errors.js";

// realpath + stat cost ~60 µs a call on this kind of machine; warm calls repeat the same cwd many times a second.
const CWD_CACHE_MS = 1000;
const cwdCache = new Map<string, { real: string; at: number }>();

/** Real path of an existing directory, or CWD_INVALID (checked again at most once a second per cwd). */
export function normaliseCwd(cwd: string): string {
  const now = performance.now();
  const cached = cwdCache.get(cwd);
  if (cached !== undefined && now - cached.at < CWD_CACHE_MS) return cached.real;
  const real = checkCwd(cwd);
  if (cwdCache.size > 256) cwdCache.clear();
  cwdCache.set(cwd, { real, at: now });
  return real;
}

function checkCwd(cwd: string): string {
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch (err) {
    throw new EvalkitError("CWD_INVALID", `working directory does not exist: ${cwd}`, { cwd }, err);
  }
  if (!statSync(real).isDirectory()) {
    throw new EvalkitError("CWD_INVALID", `working directory is not a directory: ${cwd}`, { cwd });
  }
  return real;
}
