// Fills the runner's compiled-code cache outside the sandbox, so a user who only runs sandboxed kernels (which see
// the cache read-only, or not at all before it exists) starts warm too; only evalkit's own sources are compiled.
import { spawn } from "node:child_process";
import { existsSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import type { PythonStartOptions } from "./python-command.js";
import { buildRunnerBundle, describeRunnerSourcesVersion, RUNNER_LOADER } from "./runner-bundle.js";

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
 * True when the binary lies in a path the sandboxed cell may write: running it outside the sandbox could then run
 * what a cell planted (the binary itself, or a `pyvenv.cfg` beside it whose `home` points at planted code).
 */
function isWritableFromInside(binary: string, options: PythonStartOptions): boolean {
  const writable = [options.cwd ?? process.cwd(), ...(options.sandbox?.writable ?? [])];
  return writable.some((dir) => isInside(binary, realOrSelf(dir)) || isInside(binary, resolve(dir)));
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
 * which writes the cache the sandbox then shows read-only. Skipped for a binary a cell could change.
 * Never throws: without the cache the kernel compiles its modules itself, as before.
 */
export async function warmSandboxCodeCache(options: PythonStartOptions): Promise<void> {
  const dir = resolveCodeCacheDir(options);
  if (dir === undefined || !options.sandbox) return;
  try {
    // The binary behind a venv's symlink: the same bytecode (the cache is keyed by the interpreter's cache tag and
    // magic), without reading the venv's pyvenv.cfg, which sits in the cell's writable cwd when the venv does.
    const binary = realOrSelf(options.python);
    const stamp = stampPath(dir, binary);
    if (stamp === undefined || existsSync(stamp) || isWritableFromInside(binary, options)) return;
    const ok = await runCompileOnly(binary, options, dir);
    if (ok) writeFileSync(stamp, "", { mode: 0o600 });
  } catch {
    // A cache that cannot be filled costs start-up time, never the kernel.
  }
}

function runCompileOnly(binary: string, options: PythonStartOptions, dir: string): Promise<boolean> {
  return new Promise((resolveRun) => {
    const child = spawn(binary, ["-I", "-S", "-c", RUNNER_LOADER, "evalkit-compile"], {
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
