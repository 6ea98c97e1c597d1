// Where the installed package lives, found from the running file: the same answer from src/ (tests), dist/
// (the bundle's entry files) and dist/chunks/ (its shared chunks), whose depths differ.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/** The folder holding evalkit's package.json (walking up from this file; bundling moves code between depths). */
export function packageRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "python"))) break;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`evalkit: no package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  cachedRoot = dir;
  return dir;
}

/** A path inside the package, e.g. `packagePath("python")`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}

/** The package's version from package.json ("0.0.0" when unreadable). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
