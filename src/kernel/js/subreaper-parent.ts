// The JS kernel's parent process: a small Python that is a child subreaper (Node cannot call prctl), found here.

import { existsSync } from "node:fs";
import { findAllOnPath, isExecutableFile } from "../../runtime/find-executable.js";
import { packagePath } from "../../runtime/package-root.js";
import { detectShim } from "../../runtime/resolve-shim.js";

/** The script (stdlib only, any CPython 3.8+) that becomes the kernel's parent: docs/javascript.md#process-tree. */
export const SUBREAPER_PARENT_SCRIPT = packagePath("python", "subreaper_parent.py");

/** Tried before PATH: system interpreters start in ~10 ms, a version manager's shim costs ~300 ms. */
const SYSTEM_PYTHONS = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"];

let cachedPython: string | null | undefined;

/**
 * The interpreter that runs the subreaper parent: `choice` when given (false: none), else the first system
 * python3, else the first python3 on the host's PATH that is not a version-manager shim. Null when there is none,
 * or not on Linux (PR_SET_CHILD_SUBREAPER is Linux's).
 */
export function subreaperPython(choice: string | false | undefined): string | null {
  if (choice === false || process.platform !== "linux" || !hasScript()) return null;
  if (choice !== undefined) return choice;
  cachedPython ??= findSubreaperPython(process.env);
  return cachedPython;
}

/** The automatic choice for an environment (`evalkit doctor` shows it): null when there is none or not on Linux. */
export function findSubreaperPython(env: NodeJS.ProcessEnv): string | null {
  if (process.platform !== "linux" || !hasScript()) return null;
  const candidates = [...SYSTEM_PYTHONS, ...findAllOnPath("python3", env)];
  return candidates.find((file) => isExecutableFile(file) && detectShim(file) === undefined) ?? null;
}

let scriptFound: boolean | undefined;

/** A copy of the package without python/ (hand-trimmed) still runs its JS kernels, without the parent. */
function hasScript(): boolean {
  scriptFound ??= existsSync(SUBREAPER_PARENT_SCRIPT);
  return scriptFound;
}

/** `python -I -S <script>`: isolated and without site, so nothing from the user's environment loads into it. */
export function subreaperPrefix(python: string): string[] {
  return [python, "-I", "-S", SUBREAPER_PARENT_SCRIPT];
}
