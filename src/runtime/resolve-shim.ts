// Shim detection and resolution (pyenv, asdf, mise...): a shim costs ~300 ms per start, the real binary does not.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findOnPath, isDirectory, isExecutableFile, type RuntimePlatform } from "./find-executable.js";

/** What kind of launcher stands between the user and the interpreter. */
export type ShimKind = "pyenv" | "asdf" | "mise" | "script";

/** A shim found at `shim`; `resolved` is the real interpreter when it could be worked out without running anything. */
export interface ShimInfo {
  kind: ShimKind;
  shim: string;
  resolved?: string;
  /** The tool version the shim selects (e.g. "3.11.7"), when known. */
  version?: string;
}

function readHead(file: string, bytes = 1024): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString("latin1");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Classifies `file` as a version-manager shim, or returns undefined for a binary, a symlink to one, or a
 * deliberate wrapper script (a wrapper may start Python elsewhere, e.g. in a container, so it is kept as is).
 */
export function detectShim(file: string): ShimInfo | undefined {
  const head = readHead(file);
  const inShimsDir = path.basename(path.dirname(file)) === "shims";
  if (head.startsWith("#!")) {
    if (/pyenv"? exec/.test(head)) return { kind: "pyenv", shim: file };
    if (/asdf"? exec/.test(head)) return { kind: "asdf", shim: file };
    if (/(mise|rtx)"? (x|exec)\b/.test(head)) return { kind: "mise", shim: file };
  }
  // mise's shims are symlinks to the mise binary itself; any other file in a `shims` folder is a shim too.
  if (inShimsDir) return { kind: /mise|rtx/.test(file) ? "mise" : "script", shim: file };
  return undefined;
}

/** The pyenv root a shim belongs to: the one written in the shim, else PYENV_ROOT, else the shims dir's parent. */
function pyenvRootOf(shim: string, env: NodeJS.ProcessEnv): string {
  const written = /export PYENV_ROOT="([^"]+)"/.exec(readHead(shim))?.[1];
  if (written !== undefined && isDirectory(written)) return written;
  if (env.PYENV_ROOT && isDirectory(env.PYENV_ROOT)) return env.PYENV_ROOT;
  const parent = path.dirname(path.dirname(shim));
  return isDirectory(path.join(parent, "versions")) ? parent : path.join(os.homedir(), ".pyenv");
}

function parseVersionFile(file: string): string[] | undefined {
  try {
    const words = readFileSync(file, "utf8")
      .split(/\r?\n/)
      .filter((line) => !line.trimStart().startsWith("#"))
      .flatMap((line) => line.split(/\s+/))
      .filter((word) => word.length > 0);
    return words.length > 0 ? words : undefined;
  } catch {
    return undefined;
  }
}

/** pyenv's own precedence: PYENV_VERSION, then `.python-version` in cwd and its ancestors, then `<root>/version`. */
export function selectPyenvVersions(root: string, cwd: string, env: NodeJS.ProcessEnv): string[] {
  if (env.PYENV_VERSION) return env.PYENV_VERSION.split(":").filter(Boolean);
  let dir = path.resolve(env.PYENV_DIR ?? cwd);
  for (;;) {
    const found = parseVersionFile(path.join(dir, ".python-version"));
    if (found) return found;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return parseVersionFile(path.join(root, "version")) ?? ["system"];
}

function compareVersionNames(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  const pb = b.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (diff !== 0 && !Number.isNaN(diff)) return diff;
  }
  return 0;
}

/** `versions/<name>` if installed, else the newest installed `<name>.*` (pyenv accepts prefixes like "3.11"). */
function findPyenvVersionDir(root: string, name: string): { dir: string; version: string } | undefined {
  const versionsDir = path.join(root, "versions");
  const exact = path.join(versionsDir, name);
  if (isDirectory(exact)) return { dir: exact, version: name };
  let installed: string[];
  try {
    installed = readdirSync(versionsDir).filter((entry) => entry.startsWith(`${name}.`));
  } catch {
    return undefined;
  }
  const newest = installed
    .filter((entry) => /^[\d.]+$/.test(entry))
    .sort(compareVersionNames)
    .pop();
  return newest === undefined ? undefined : { dir: path.join(versionsDir, newest), version: newest };
}

/** Works out which real binary a pyenv shim would exec, by reading pyenv's version files (no `pyenv which`). */
export function resolvePyenvShim(
  shim: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  platform: RuntimePlatform = process.platform,
): ShimInfo {
  const root = pyenvRootOf(shim, env);
  const program = path.basename(shim);
  for (const name of selectPyenvVersions(root, cwd, env)) {
    if (name === "system") {
      const shimDirs = [path.dirname(shim), path.join(root, "shims")];
      const system = findOnPath(program, env, { platform, skipDirs: shimDirs });
      if (system !== undefined && detectShim(system) === undefined) {
        return { kind: "pyenv", shim, resolved: system, version: "system" };
      }
      continue;
    }
    const found = findPyenvVersionDir(root, name);
    if (found === undefined) continue;
    const binary = path.join(found.dir, "bin", program);
    if (isExecutableFile(binary, platform)) {
      return { kind: "pyenv", shim, resolved: binary, version: found.version };
    }
  }
  return { kind: "pyenv", shim };
}

/** Detects a shim at `file` and resolves it statically when the tool allows; undefined for a plain binary. */
export function inspectShim(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  platform: RuntimePlatform = process.platform,
): ShimInfo | undefined {
  const shim = detectShim(file);
  if (shim?.kind === "pyenv") return resolvePyenvShim(file, cwd, env, platform);
  return shim;
}
