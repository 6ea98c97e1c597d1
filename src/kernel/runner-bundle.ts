// Packs the Python runner (python/evalkit_kernel) into the payload the bootstrap reads from stdin.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's python/ folder, both from src/ (tests) and dist/ (installed). */
export const PYTHON_DIR = fileURLToPath(new URL("../../python/", import.meta.url));

let cachedBootstrap: string | undefined;
let cachedSources: { modules: Record<string, string>; packages: string[] } | undefined;

/** The small program passed to `python -u -c`: it reads the bundle and starts the runner. */
export function loadBootstrap(): string {
  cachedBootstrap ??= readFileSync(join(PYTHON_DIR, "bootstrap.py"), "utf8");
  return cachedBootstrap;
}

function collectModules(
  dir: string,
  dotted: string,
  into: { modules: Record<string, string>; packages: string[] },
) {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (entry === "__pycache__") continue;
    if (statSync(path).isDirectory()) {
      collectModules(path, `${dotted}.${entry}`, into);
    } else if (entry.endsWith(".py")) {
      const source = readFileSync(path, "utf8");
      if (entry === "__init__.py") {
        into.modules[dotted] = source;
        into.packages.push(dotted);
      } else {
        into.modules[`${dotted}.${entry.slice(0, -3)}`] = source;
      }
    }
  }
}

/** Header line plus JSON payload: `EVALKIT <bytes>\n{"modules":…,"packages":…,"entry":…,"config":…}`. */
export function buildRunnerBundle(config: Record<string, unknown> = {}): Buffer {
  if (cachedSources === undefined) {
    const sources = { modules: {} as Record<string, string>, packages: [] as string[] };
    collectModules(join(PYTHON_DIR, "evalkit_kernel"), "evalkit_kernel", sources);
    cachedSources = sources;
  }
  const payload = Buffer.from(
    JSON.stringify({ ...cachedSources, entry: "evalkit_kernel.main", config }),
    "utf8",
  );
  return Buffer.concat([Buffer.from(`EVALKIT ${payload.length}\n`, "ascii"), payload]);
}
