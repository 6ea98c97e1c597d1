// Host scripts run as an unprivileged user (`nobody`, when the suite runs as root) from a place that user can read.
//
// A checkout may be private (a clone in root's home, mode 700 on Debian; a `mktemp -d` folder): `nobody` cannot read
// its node_modules (tsx) nor its sources there. So the fixture is bundled with esbuild into a temp folder of mode
// 755 that holds what the bundle reads at run time (package.json, python/, runner-js/, acorn), and the test runs
// `node <bundle>` from there. Whether `nobody` can run it is checked at once, so a test skips (naming why) instead
// of waiting out a timeout.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const isRoot = process.getuid?.() === 0;

/** How to start a fixture host as the unprivileged user, or why that cannot be done here. */
export type UnprivilegedHost =
  | { ok: true; dir: string; command: (fixture: string, ...args: string[]) => string[]; cleanup: () => void }
  | { ok: false; reason: string };

/** The command prefix that drops root to `nobody` (no supplementary groups; setpriv ships with util-linux). */
export const DROP_TO_NOBODY = [
  "/usr/bin/setpriv",
  "--reuid=nobody",
  "--regid=nogroup",
  "--clear-groups",
  "--",
];

function makeReadable(path: string): void {
  const stats = statSync(path);
  chmodSync(path, stats.isDirectory() ? 0o755 : stats.mode & 0o111 ? 0o755 : 0o644);
  if (stats.isDirectory()) for (const entry of readdirSync(path)) makeReadable(join(path, entry));
}

/** What the built CLI and library read at run time: a copy of these runs wherever the user can read it. */
export const CLI_PARTS = [
  "package.json",
  "bin",
  "dist",
  "python",
  "runner-js",
  "node_modules/acorn",
  "node_modules/turndown",
  "node_modules/turndown-plugin-gfm",
  "node_modules/@mixmark-io",
];

/** A copy of the checkout's `parts` (paths relative to it) in a temp folder everyone can read, or why not. */
export type ReadableCopy = { ok: true; dir: string; cleanup: () => void } | { ok: false; reason: string };

/** Copies `parts` of the checkout into a fresh temp folder, every directory 755 and file 644 (or 755). */
export function makeReadableCopy(parts: string[]): ReadableCopy {
  const dir = mkdtempSync(join(tmpdir(), "evalkit-unprivileged-host-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const part of parts) {
      cpSync(join(ROOT, part), join(dir, part), {
        recursive: true,
        filter: (source) => !source.includes("__pycache__"),
      });
    }
    makeReadable(dir);
  } catch (err) {
    cleanup();
    return {
      ok: false,
      reason: `could not copy the checkout where nobody can read it: ${(err as Error).message}`,
    };
  }
  return { ok: true, dir, cleanup };
}

/**
 * Prepares `fixtures` (paths of .ts host scripts under test/fixtures) to run as `nobody`. Not as root, the suite's
 * user is unprivileged already and runs them from the checkout through tsx.
 */
export async function prepareUnprivilegedHost(fixtures: string[]): Promise<UnprivilegedHost> {
  if (!isRoot) {
    return {
      ok: true,
      dir: ROOT,
      command: (fixture, ...args) => [process.execPath, "--import", "tsx", fixture, ...args],
      cleanup: () => {},
    };
  }
  const copy = makeReadableCopy(["package.json", "python", "runner-js", "node_modules/acorn"]);
  if (!copy.ok) return copy;
  const { dir, cleanup } = copy;
  try {
    mkdirSync(join(dir, "fixtures"));
    await build({
      absWorkingDir: ROOT,
      entryPoints: fixtures,
      outdir: join(dir, "fixtures"),
      outExtension: { ".js": ".mjs" },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: ["acorn", "turndown", "turndown-plugin-gfm"],
      // Bundled CommonJS dependencies call require(); give the ES module one.
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
      logLevel: "error",
    });
    makeReadable(dir);
  } catch (err) {
    cleanup();
    return { ok: false, reason: `could not prepare a copy nobody can read: ${(err as Error).message}` };
  }
  const entry = (fixture: string) => join(dir, "fixtures", basename(fixture).replace(/\.ts$/, ".mjs"));
  // Can `nobody` run node and read the copy? Answered in milliseconds, not by a test's timeout.
  const probe = spawnSync(
    DROP_TO_NOBODY[0]!,
    [
      ...DROP_TO_NOBODY.slice(1),
      process.execPath,
      "-e",
      "require('node:fs').accessSync(process.argv[1])",
      entry(fixtures[0]!),
    ],
    { encoding: "utf8", timeout: 20_000, cwd: "/" },
  );
  if (probe.status !== 0) {
    cleanup();
    const said = `${probe.stderr ?? ""}${probe.error?.message ?? ""}`.trim().split("\n").at(-1) ?? "";
    return {
      ok: false,
      reason: `user nobody cannot run ${process.execPath} on a copy in ${tmpdir()}: ${said}`,
    };
  }
  return {
    ok: true,
    dir,
    command: (fixture, ...args) => [...DROP_TO_NOBODY, process.execPath, entry(fixture), ...args],
    cleanup,
  };
}
