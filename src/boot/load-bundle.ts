// Loads one of dist/'s CommonJS bundles through V8's code cache, so a new process skips compiling evalkit.
//
// Why: a whole process (`evalkit exec`, `evalkit mcp`, a script importing evalkit) spent ~12–20 ms of its
// ~130 ms compiling evalkit's ~700 KB of bundled JavaScript, lazily compiled functions included. Node 20 has no
// compile cache for ES modules, and Node 22's `module.enableCompileCache()` is a process-wide switch that a
// library must not flip for its host. V8's code cache through `vm.Script` works on every supported Node: the
// first process writes the compiled code (after it ran, so the functions it used are in it) and the next ones
// deserialise it instead of parsing.
//
// Trust: the cache is code. It lives in `$EVALKIT_HOME/cache/node-code` (default ~/.evalkit), the same place
// and under the same rule as the Python runner's code cache: used only when the directory is the current
// user's and not writable by group or others; files are written to a temporary name and renamed. Anything
// unexpected (no home, a read-only disk, a foreign directory) means compiling as usual, silently.

import type { Stats } from "node:fs";
import { createRequire } from "node:module";
import type vmModule from "node:vm";
import { resolveEvalkitHome } from "../runtime/evalkit-home.js";

// Built-ins come through `require`, not `import`: an ES module import of node:fs builds a facade that reads
// every export, and its lazy getters (`promises`, `ReadStream`…) load fs/promises, readline and the stream
// classes: ~2–4 ms that no one here uses.
const requireBuiltin = createRequire(import.meta.url);
const fs = requireBuiltin("node:fs") as typeof import("node:fs");
const path = requireBuiltin("node:path") as typeof import("node:path");
const vm = requireBuiltin("node:vm") as typeof vmModule;
const { fileURLToPath } = requireBuiltin("node:url") as typeof import("node:url");

/** The subfolder of `$EVALKIT_HOME` that holds compiled bundles. */
export const NODE_CODE_CACHE_DIR = path.join("cache", "node-code");

/** What happened to the code cache when a bundle was loaded. */
export type CodeCacheUse = "used" | "written" | "rejected" | "off";

/** The last load's cache use per bundle file (tests read it). */
export const codeCacheUses = new Map<string, CodeCacheUse>();

// A CommonJS wrapper like Node's own. "use strict" keeps the ES module semantics the sources were written for;
// everything stays on the first line so that stack traces and source maps keep their line numbers.
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {"use strict";';
const WRAPPER_TAIL = "\n})";

/**
 * Loads `bundle` (a file URL or path to a CommonJS file) and returns its exports. `label` names the path that
 * loads it ("library", "cli-exec", …): each label keeps its own cache, holding the functions that path runs.
 */
export function loadBundle(bundle: string | URL, label: string): Record<string, unknown> {
  const file = typeof bundle === "string" ? bundle : fileURLToPath(bundle);
  const { source, stats } = readSource(file);
  const cacheDir = trustedCacheDir();
  const cacheFile = cacheDir ? path.join(cacheDir, cacheFileName(label, stats)) : undefined;
  const cachedData = cacheFile ? readIfPresent(cacheFile) : undefined;
  const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, { filename: file, cachedData });
  const module = { exports: {} as Record<string, unknown> };
  const factory = script.runInThisContext() as (...args: unknown[]) => void;
  factory.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  let use: CodeCacheUse = "off";
  if (cacheDir && cacheFile) {
    use = cachedData === undefined ? "written" : script.cachedDataRejected ? "rejected" : "used";
    // Written at exit, after the process ran: the cache then holds the functions this path compiled lazily.
    if (use !== "used") process.once("exit", () => writeCache(script, cacheDir, cacheFile, label));
  }
  codeCacheUses.set(file, use);
  return module.exports;
}

function readSource(file: string): { source: string; stats: Stats } {
  const fd = fs.openSync(file, "r");
  try {
    return { stats: fs.fstatSync(fd), source: fs.readFileSync(fd, "utf8") };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The file's identity in the name: V8 checks only the source's length against a cache, so a bundle rebuilt or
 * reinstalled (new size, mtime or inode) must never meet the cache of another. Node's version and the CPU are
 * in it too, so two Node installs do not overwrite each other's cache at every start.
 */
function cacheFileName(label: string, stats: Stats): string {
  const identity = `${stats.size}-${Math.trunc(stats.mtimeMs)}-${stats.ino}`;
  return `${label}-${identity}-${process.version}-${process.arch}.v8`;
}

/** The cache directory, created if missing; undefined when caching is off or the directory is not trusted. */
function trustedCacheDir(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = path.join(resolveEvalkitHome(), NODE_CODE_CACHE_DIR);
    let stats = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!stats) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      stats = fs.lstatSync(dir);
    }
    const uid = process.getuid?.();
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o022) !== 0) {
      return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache atomically and drops this label's caches of other bundle builds (a rebuild leaves one). */
function writeCache(script: vmModule.Script, dir: string, file: string, label: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temporary, file);
    const keep = path.basename(file);
    const sameSlot = `${label}-`;
    const sameRuntime = `-${process.version}-${process.arch}.v8`;
    for (const name of fs.readdirSync(dir)) {
      if (name === keep || !name.startsWith(sameSlot) || !name.endsWith(sameRuntime)) continue;
      // Only `<label>-<size>-<mtime>-<inode><runtime>`: another label that merely starts the same stays.
      if (/^\d+-\d+-\d+$/.test(name.slice(sameSlot.length, -sameRuntime.length)))
        fs.unlinkSync(path.join(dir, name));
    }
  } catch {
    try {
      fs.unlinkSync(temporary);
    } catch {
      // Nothing was written.
    }
  }
}
