// Builds dist/ (the bundle bin/evalkit.js runs and users import) once for the test files that need it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const BUILD_LOCK = path.join(
  os.tmpdir(),
  `evalkit-test-build-${Buffer.from(ROOT).toString("hex").slice(-32)}.lock`,
);
const OUTPUTS = [
  path.join(ROOT, "dist", "index.js"),
  path.join(ROOT, "dist", "cli.cjs"),
  path.join(ROOT, "dist", "evalkit.cjs"),
  path.join(ROOT, "dist", "runner-sources.json"),
];

/** Newest modification time of the files under `dir` whose names end with `suffix`. */
function newestMs(dir: string, suffix: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMs(full, suffix));
    else if (entry.name.endsWith(suffix)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Newest modification time of the build's inputs: the TypeScript sources, the build's own configuration and
 * the Python runner (the build stores its sources in dist/runner-sources.json).
 */
function newestInputMs(): number {
  return Math.max(
    ...["package.json", "scripts/build.mjs", "scripts/bundle-config.mjs"].map(
      (f) => statSync(path.join(ROOT, f)).mtimeMs,
    ),
    newestMs(path.join(ROOT, "src"), ".ts"),
    newestMs(path.join(ROOT, "python", "evalkit_kernel"), ".py"),
  );
}

function isBuildFresh(): boolean {
  const inputs = newestInputMs();
  return OUTPUTS.every((file) => existsSync(file) && statSync(file).mtimeMs >= inputs);
}

/**
 * Runs `npm run build` (scripts/build.mjs) unless dist/ is newer than every source. Test files run in parallel,
 * so one builds while the others wait on a lock. A type error elsewhere fails tsc after the bundle is written,
 * so only missing outputs fail the set-up.
 */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + 150_000;
  while (!isBuildFresh()) {
    try {
      mkdirSync(BUILD_LOCK);
    } catch {
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 120_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another test's build");
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      spawnSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: "ignore" });
    } finally {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
    break;
  }
  for (const file of OUTPUTS) if (!existsSync(file)) throw new Error(`the build did not produce ${file}`);
}
