// The kernel's final environment: the filtered parent environment adjusted for the chosen interpreter (venv PATH etc.).
import path from "node:path";
import { type FilterEnvOptions, filterEnv } from "./env-filter.js";
import { binDirOfPrefix, type RuntimePlatform } from "./find-executable.js";
import type { PythonEnvAdditions, ResolvedPython } from "./python-types.js";

function pathModule(platform: RuntimePlatform) {
  return platform === "win32" ? path.win32 : path.posix;
}

/**
 * What activating the interpreter's environment would do: a venv puts its `bin` (`Scripts`) first on PATH and
 * sets VIRTUAL_ENV (and drops PYTHONHOME, like `activate`); conda sets CONDA_PREFIX; an interpreter reached
 * through a pyenv shim gets its own bin dir first on PATH, as `pyenv exec` would, so `pip` matches it.
 */
export function computeEnvAdditions(
  resolved: Pick<ResolvedPython, "executable" | "venv" | "shim">,
  venvKind: "venv" | "conda",
  platform: RuntimePlatform = process.platform,
): PythonEnvAdditions {
  const p = pathModule(platform);
  if (resolved.venv !== undefined) {
    const prefix = resolved.venv;
    if (venvKind === "conda") {
      const pathPrepend =
        platform === "win32"
          ? [
              prefix,
              p.join(prefix, "Library", "mingw-w64", "bin"),
              p.join(prefix, "Library", "usr", "bin"),
              p.join(prefix, "Library", "bin"),
              p.join(prefix, "Scripts"),
            ]
          : [p.join(prefix, "bin")];
      return { pathPrepend, set: { CONDA_PREFIX: prefix }, unset: ["PYTHONHOME", "VIRTUAL_ENV"] };
    }
    return {
      pathPrepend: [binDirOfPrefix(prefix, platform)],
      set: { VIRTUAL_ENV: prefix },
      unset: ["PYTHONHOME"],
    };
  }
  // Not in a venv: an inherited VIRTUAL_ENV would tell tools (pip, poetry) about an environment the kernel is not in.
  const pathPrepend =
    resolved.shim && resolved.executable !== resolved.shim.path ? [p.dirname(resolved.executable)] : [];
  return { pathPrepend, set: {}, unset: ["VIRTUAL_ENV"] };
}

function findKey(env: Record<string, string>, name: string, platform: RuntimePlatform): string | undefined {
  if (platform !== "win32") return name in env ? name : undefined;
  return Object.keys(env).find((key) => key.toUpperCase() === name);
}

/** Applies {@link PythonEnvAdditions} to an environment (PATH prepended without duplicates). Returns a new object. */
export function applyEnvAdditions(
  env: Record<string, string>,
  additions: PythonEnvAdditions,
  platform: RuntimePlatform = process.platform,
): Record<string, string> {
  const result = { ...env };
  for (const name of additions.unset) {
    const key = findKey(result, name, platform);
    if (key !== undefined) delete result[key];
  }
  for (const [name, value] of Object.entries(additions.set)) {
    const key = findKey(result, name, platform) ?? name;
    result[key] = value;
  }
  if (additions.pathPrepend.length > 0) {
    const delimiter = platform === "win32" ? ";" : ":";
    const key = findKey(result, "PATH", platform) ?? "PATH";
    const rest = (result[key] ?? "")
      .split(delimiter)
      .filter((entry) => entry && !additions.pathPrepend.includes(entry));
    result[key] = [...additions.pathPrepend, ...rest].join(delimiter);
  }
  return result;
}

/** Options of {@link buildKernelEnv}. */
export interface BuildKernelEnvOptions {
  /** Extra names (`NAME`) or prefixes (`PREFIX_*`) to pass through from the parent; see filterEnv. */
  allow?: string[];
  platform?: RuntimePlatform;
}

/**
 * The environment a kernel for `resolved` starts with: `filterEnv(parentEnv)`, then the interpreter's venv
 * additions, then `extra` (the embedder's explicit variables win over everything).
 */
export function buildKernelEnv(
  resolved: Pick<ResolvedPython, "envAdditions">,
  parentEnv: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
  extra: Record<string, string> = {},
  options: BuildKernelEnvOptions = {},
): Record<string, string> {
  const platform = options.platform ?? process.platform;
  const filterOptions: FilterEnvOptions = {};
  if (options.allow) filterOptions.allow = options.allow;
  const filtered = filterEnv(parentEnv, filterOptions);
  const withVenv = applyEnvAdditions(filtered, resolved.envAdditions, platform);
  return { ...withVenv, ...extra };
}
