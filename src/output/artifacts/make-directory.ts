// `mkdir -p` that always ends: Node's own recursive mkdir can spin forever on some file systems.
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Creates `dir` and its missing parents (each with `mode`), like `mkdirSync(dir, { recursive: true })`. Node 20's
 * recursive mkdir loops forever, at full CPU, where mkdir answers ENOENT under a parent that exists (`/proc/1/x`,
 * `/sys/…`): here each missing level is made once and the first failure is thrown (ENOENT, ENOTDIR, EACCES).
 */
export function makeDirectory(dir: string, mode?: number): void {
  const missing: string[] = [];
  let current = resolve(dir);
  for (;;) {
    try {
      statSync(current);
      break; // exists: a file in the way fails below with ENOTDIR or EEXIST, as mkdir -p does
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
      missing.push(current);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  if (missing.length === 0 && !statSync(current).isDirectory()) {
    mkdirSync(current); // throws EEXIST naming the file in the way
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path, mode);
    } catch (err) {
      // Another process made it in between: fine, if it is a directory.
      if (errorCode(err) === "EEXIST" && statSync(path).isDirectory()) continue;
      throw err;
    }
  }
}
