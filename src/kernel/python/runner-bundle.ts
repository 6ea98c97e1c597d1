// Packs the Python runner (python/evalkit_kernel) into the payload a kernel reads from stdin: the bootstrap
// (for the short loader on the command line), then the bundle.

import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { packagePath } from "../../runtime/package-root.js";

// node:crypto (~2 ms to load) only when the runner is packed from python/ itself: the bundle ships digests.
const loadCrypto = () => createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");

/** The package's python/ folder, both from src/ (tests) and the dist/ bundle (installed). */
export const PYTHON_DIR = packagePath("python");

/**
 * The file scripts/build.mjs writes next to the bundle: the runner's sources as {@link collectRunnerSources}
 * returns them, serialised. Only the bundle reads it (the build defines `EVALKIT_BUNDLED`), so code run from
 * src/ always packs python/ as it is on disk.
 */
export const PREBUILT_SOURCES_FILE = "runner-sources.json";
declare const EVALKIT_BUNDLED: boolean | undefined;

let cachedBootstrap: string | undefined;
/** The runner's modules, in the shape the bootstrap reads (plus `entry`, the module whose main() starts it). */
export interface RunnerSources {
  modules: Record<string, string>;
  packages: string[];
  /** Source digest per module: the key of the runner's compiled-code cache. */
  hashes: Record<string, string>;
  entry: string;
}

/** `{"modules":…,"entry":…` without its closing brace, as UTF-8: only `config` differs between kernels. */
let cachedSourcesPrefix: Buffer | undefined;

/**
 * The program passed to `python -u -c`, short so that `ps` shows what the process is: it reads an 8-digit size,
 * then that many bytes of bootstrap (python/bootstrap.py) from stdin, and runs them; the bootstrap then reads the
 * bundle. Every read is repeated until it has all its bytes (a pipe may hand them over in pieces).
 */
export const RUNNER_LOADER =
  "import os;r=lambda n:(lambda c:c+r(n-len(c)) if c and len(c)<n else c)(os.read(0,n));exec(r(int(r(8))))";

/** The words after the loader in `ps`: `evalkit-kernel python` (sys.argv is reset to ["-c"] by the bootstrap). */
export const RUNNER_PS_LABEL = ["evalkit-kernel", "python"];

/** The bootstrap that reads the bundle and starts the runner (python/bootstrap.py). */
export function loadBootstrap(): string {
  cachedBootstrap ??= readFileSync(join(PYTHON_DIR, "bootstrap.py"), "utf8");
  return cachedBootstrap;
}

let cachedBootstrapStage: Buffer | undefined;

/** What the loader reads first: the bootstrap's size in 8 digits, then the bootstrap. */
function bootstrapStage(): Buffer {
  if (cachedBootstrapStage === undefined) {
    const code = Buffer.from(loadBootstrap(), "utf8");
    cachedBootstrapStage = Buffer.concat([Buffer.from(String(code.length).padStart(8, "0"), "ascii"), code]);
  }
  return cachedBootstrapStage;
}

function collectModules(dir: string, dotted: string, into: RunnerSources) {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (entry === "__pycache__") continue;
    if (statSync(path).isDirectory()) {
      collectModules(path, `${dotted}.${entry}`, into);
    } else if (entry.endsWith(".py")) {
      const source = readFileSync(path, "utf8");
      const name = entry === "__init__.py" ? dotted : `${dotted}.${entry.slice(0, -3)}`;
      into.modules[name] = source;
      into.hashes[name] = loadCrypto().createHash("sha256").update(source).digest("hex").slice(0, 32);
      if (entry === "__init__.py") into.packages.push(dotted);
    }
  }
}

/** Reads python/evalkit_kernel from disk: every module's source and digest (the build stores this once). */
export function collectRunnerSources(): RunnerSources {
  const sources: RunnerSources = { modules: {}, packages: [], hashes: {}, entry: "evalkit_kernel.core.main" };
  collectModules(join(PYTHON_DIR, "evalkit_kernel"), "evalkit_kernel", sources);
  return sources;
}

/**
 * The bundle with `config`: header, the sources' JSON without its closing brace, then `,"config":…}`. In the
 * bundle the sources come from the build's file, read straight into the payload's place (reading and hashing
 * ~60 files, then encoding and copying ~300 KB, cost ~7 ms of every process that starts a kernel: fresh pages
 * are slow to touch on small virtual machines); from src/ they are collected from python/ once.
 */
export function buildRunnerBundle(config: Record<string, unknown> = {}): Buffer {
  const tail = Buffer.from(`,"config":${JSON.stringify(config)}}`, "utf8");
  if (cachedSourcesPrefix === undefined) {
    const first = typeof EVALKIT_BUNDLED !== "undefined" && EVALKIT_BUNDLED ? readPrebuilt(tail) : undefined;
    if (first !== undefined) return first;
    const json = JSON.stringify(collectRunnerSources());
    cachedSourcesPrefix = Buffer.from(json.slice(0, -1), "utf8");
  }
  return assemble(cachedSourcesPrefix, tail);
}

/**
 * A string that changes whenever the runner's sources do: in the bundle the prebuilt file's size and time (no
 * read of ~300 KB), from src/ a digest of the modules' digests.
 */
export function describeRunnerSourcesVersion(): string {
  if (typeof EVALKIT_BUNDLED !== "undefined" && EVALKIT_BUNDLED) {
    const stats = statSync(packagePath("dist", PREBUILT_SOURCES_FILE), { throwIfNoEntry: false });
    if (stats) return `prebuilt:${stats.size}:${stats.mtimeMs}`;
  }
  if (cachedSourcesVersion === undefined) {
    const hashes = collectRunnerSources().hashes;
    const joined = Object.keys(hashes)
      .sort()
      .map((name) => `${name}=${hashes[name]}`)
      .join(",");
    cachedSourcesVersion = `sources:${loadCrypto().createHash("sha256").update(joined).digest("hex")}`;
  }
  return cachedSourcesVersion;
}

let cachedSourcesVersion: string | undefined;

/** The loader's bootstrap, then the bundle's header line. */
function header(size: number): Buffer {
  return Buffer.concat([bootstrapStage(), Buffer.from(`EVALKIT ${size}\n`, "ascii")]);
}

function assemble(prefix: Buffer, tail: Buffer): Buffer {
  return Buffer.concat([header(prefix.length + tail.length), prefix, tail]);
}

/** The first payload of a bundled process, with the prebuilt file read into it; undefined without the file. */
function readPrebuilt(tail: Buffer): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(packagePath("dist", PREBUILT_SOURCES_FILE), "r");
  } catch {
    return undefined; // a dist/ without the file (an interrupted build): pack python/ as it is
  }
  try {
    const prefixSize = fstatSync(fd).size - 1; // the file is one JSON object: drop its closing brace
    const head = header(prefixSize + tail.length);
    const payload = Buffer.allocUnsafe(head.length + prefixSize + tail.length);
    head.copy(payload, 0);
    // The whole file (its brace lands where the tail goes, which is never shorter): a file cut short fails here.
    let done = 0;
    while (done <= prefixSize) {
      const n = readSync(fd, payload, head.length + done, prefixSize + 1 - done, done);
      if (n === 0) return undefined;
      done += n;
    }
    if (payload[head.length + prefixSize] !== 0x7d) return undefined;
    tail.copy(payload, head.length + prefixSize);
    cachedSourcesPrefix = payload.subarray(head.length, head.length + prefixSize);
    return payload;
  } finally {
    closeSync(fd);
  }
}
