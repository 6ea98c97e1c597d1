// Fills the runner's compiled-code cache outside the sandbox, so a user who only runs sandboxed kernels (which see
// the cache read-only, or not at all before it exists) starts warm too; only evalkit's own sources are compiled.
import { spawn } from "node:child_process";
import { existsSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import type { PythonStartOptions } from "./python-command.js";
import { buildRunnerBundle, describeRunnerSourcesVersion, loadBootstrap } from "./runner-bundle.js";

/** How long the compile run may take before it is killed (the kernel starts either way). */
const WARM_TIMEOUT_MS = 30_000;

/** The cache directory a kernel with `options` uses, or undefined when it uses none. */
export function resolveCodeCacheDir(options: PythonStartOptions): string | undefined {
  const cache = options.codeCacheDir;
  if (cache === false) return undefined;
  if (typeof cache === "string") return cache;
  if (options.launcher?.length) return undefined;
  return join(resolveEvalkitHome(options.env ?? process.env), "cache", "runner-code");
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * True when the interpreter, or the folder its `pyvenv.cfg` would be read from, lies in a path the sandboxed cell
 * may write: running it outside the sandbox could then run what a cell planted (a rewritten `pyvenv.cfg` `home`).
 */
function isWritableFromInside(python: string, options: PythonStartOptions): boolean {
  const writable = [options.cwd ?? process.cwd(), ...(options.sandbox?.writable ?? [])];
  const candidates = [resolve(python), realOrSelf(python)];
  return writable.some((dir) => {
    const real = realOrSelf(dir);
    return candidates.some((path) => isInside(path, real) || isInside(path, resolve(dir)));
  });
}

/** The stamp that says this interpreter (as it is on disk) already compiled these runner sources. */
function stampPath(dir: string, python: string): string | undefined {
  const stats = statSync(python, { throwIfNoEntry: false });
  if (!stats) return undefined;
  const key = [resolve(python), stats.size, stats.mtimeMs, stats.ino, describeRunnerSourcesVersion()].join(
    "\0",
  );
  return join(dir, `.compiled-${hashKey(key, 0x811c9dc5)}${hashKey(key, 0x2e4f9a17)}`);
}

/** FNV-1a, 32 bits as 8 hex digits: names the stamp without loading node:crypto (~2 ms) per process. */
function hashKey(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Before a sandboxed Python kernel starts: unless this interpreter already did, run it once outside the sandbox
 * with the bootstrap in compile-only mode (`-I -S`, sources from stdin, nothing read from the cell's folders),
 * which writes the cache the sandbox then shows read-only. Skipped for an interpreter a cell could change.
 * Never throws: without the cache the kernel compiles its modules itself, as before.
 */
export async function warmSandboxCodeCache(options: PythonStartOptions): Promise<void> {
  const dir = resolveCodeCacheDir(options);
  if (dir === undefined || !options.sandbox) return;
  try {
    const stamp = stampPath(dir, options.python);
    if (stamp === undefined || existsSync(stamp) || isWritableFromInside(options.python, options)) return;
    const ok = await runCompileOnly(options, dir);
    if (ok) writeFileSync(stamp, "", { mode: 0o600 });
  } catch {
    // A cache that cannot be filled costs start-up time, never the kernel.
  }
}

function runCompileOnly(options: PythonStartOptions, dir: string): Promise<boolean> {
  return new Promise((resolveRun) => {
    const child = spawn(options.python, ["-I", "-S", "-c", loadBootstrap()], {
      cwd: "/", // nothing of the cell's folders: -I keeps the cwd off sys.path, and "/" holds nothing of theirs
      env: (options.env ?? process.env) as NodeJS.ProcessEnv,
      stdio: ["pipe", "ignore", "ignore"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), WARM_TIMEOUT_MS);
    child.once("error", () => {
      clearTimeout(timer);
      resolveRun(false);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolveRun(code === 0);
    });
    child.stdin.on("error", () => {
      // The interpreter ended early; its exit status says so.
    });
    child.stdin.end(buildRunnerBundle({ codeCache: dir, compileOnly: true }));
  });
}
