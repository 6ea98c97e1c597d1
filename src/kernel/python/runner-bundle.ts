// Packs the Python runner (python/evalkit_kernel) into the payload the bootstrap reads from stdin.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { packagePath } from "../../runtime/package-root.js";

/** The package's python/ folder, both from src/ (tests) and the dist/ bundle (installed). */
export const PYTHON_DIR = packagePath("python");

let cachedBootstrap: string | undefined;
interface RunnerSources {
  modules: Record<string, string>;
  packages: string[];
  /** Source digest per module: the key of the runner's compiled-code cache. */
  hashes: Record<string, string>;
}

let cachedSourcesJson: string | undefined;

/** The small program passed to `python -u -c`: it reads the bundle and starts the runner. */
export function loadBootstrap(): string {
  cachedBootstrap ??= readFileSync(join(PYTHON_DIR, "bootstrap.py"), "utf8");
  return cachedBootstrap;
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
      into.hashes[name] = createHash("sha256").update(source).digest("hex").slice(0, 32);
      if (entry === "__init__.py") into.packages.push(dotted);
    }
  }
}

/**
 * Header line plus JSON payload: `EVALKIT <bytes>\n{"modules":…,"packages":…,"hashes":…,"entry":…,"config":…}`.
 * `config.codeCache` (a directory) lets the bootstrap keep compiled runner modules between starts.
 */
export function buildRunnerBundle(config: Record<string, unknown> = {}): Buffer {
  if (cachedSourcesJson === undefined) {
    const sources: RunnerSources = { modules: {}, packages: [], hashes: {} };
    collectModules(join(PYTHON_DIR, "evalkit_kernel"), "evalkit_kernel", sources);
    // Serialised once: only `config` differs between kernels.
    cachedSourcesJson = JSON.stringify({ ...sources, entry: "evalkit_kernel.core.main" }).slice(0, -1);
  }
  const payload = Buffer.from(`${cachedSourcesJson},"config":${JSON.stringify(config)}}`, "utf8");
  return Buffer.concat([Buffer.from(`EVALKIT ${payload.length}\n`, "ascii"), payload]);
}
