// PATH lookup and file probes for interpreter candidates, without spawning anything (a `which` in-process).
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** The platform the search targets; tests pass another one to exercise Windows rules on Linux. */
export type RuntimePlatform = NodeJS.Platform;

/** True when `file` exists, is a regular file (after symlinks) and may be executed by this process. */
export function isExecutableFile(file: string, platform: RuntimePlatform = process.platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform === "win32") return true;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** True when `dir` exists and is a directory. */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Splits a PATH value into its non-empty entries. */
export function splitPathList(pathValue: string | undefined, platform: RuntimePlatform = process.platform) {
  const delimiter = platform === "win32" ? ";" : ":";
  return (pathValue ?? "").split(delimiter).filter((entry) => entry.length > 0);
}

/** Reads PATH from an environment object, honouring Windows' case-insensitive `Path`. */
export function readPathVariable(env: NodeJS.ProcessEnv, platform: RuntimePlatform = process.platform) {
  if (platform !== "win32") return env.PATH;
  const key = Object.keys(env).find((name) => name.toUpperCase() === "PATH");
  return key === undefined ? undefined : env[key];
}

function executableNames(name: string, env: NodeJS.ProcessEnv, platform: RuntimePlatform): string[] {
  if (platform !== "win32" || path.win32.extname(name) !== "") return [name];
  const pathext = (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  return pathext.map((ext) => name + ext.toLowerCase());
}

/**
 * Every executable called `name` on PATH, in PATH order (like `which -a`). `skipDirs` leaves out
 * directories such as a pyenv shims folder when looking for the interpreter a shim stands for.
 */
export function findAllOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { platform?: RuntimePlatform; skipDirs?: string[] } = {},
): string[] {
  const platform = options.platform ?? process.platform;
  const skip = new Set((options.skipDirs ?? []).map((dir) => path.resolve(dir)));
  const found: string[] = [];
  for (const dir of splitPathList(readPathVariable(env, platform), platform)) {
    if (!path.isAbsolute(dir) || skip.has(path.resolve(dir))) continue;
    for (const file of executableNames(name, env, platform)) {
      const candidate = path.join(dir, file);
      if (isExecutableFile(candidate, platform) && !found.includes(candidate)) found.push(candidate);
    }
  }
  return found;
}

/** The first executable called `name` on PATH, or undefined. */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { platform?: RuntimePlatform; skipDirs?: string[] } = {},
): string | undefined {
  return findAllOnPath(name, env, options)[0];
}

/** The interpreter inside a venv or conda prefix: `bin/python` (`Scripts\python.exe`, or the root for conda, on Windows). */
export function findInterpreterInPrefix(prefix: string, platform: RuntimePlatform = process.platform) {
  const candidates =
    platform === "win32"
      ? [path.join(prefix, "Scripts", "python.exe"), path.join(prefix, "python.exe")]
      : [path.join(prefix, "bin", "python"), path.join(prefix, "bin", "python3")];
  return candidates.find((file) => isExecutableFile(file, platform));
}

/** The directory a venv's executables live in, prepended to the child's PATH. */
export function binDirOfPrefix(prefix: string, platform: RuntimePlatform = process.platform): string {
  return platform === "win32" ? path.win32.join(prefix, "Scripts") : path.posix.join(prefix, "bin");
}
