// Finds the real CPython 3.8–3.13 binaries of the machine image (pyenv versions, never the shim).

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Interpreter for integration tests (the matrix runner sets EVALKIT_TEST_PYTHON per version). A pyenv shim
 * on PATH costs 300 ms a start, so the default is the real binary behind `python3`. */
export const TEST_PYTHON =
  process.env.EVALKIT_TEST_PYTHON ??
  execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** Debian's interpreter, which has matplotlib, pandas, PIL and numpy in CI. */
export const DEBIAN_PYTHON = "/usr/bin/python3";

export const SUPPORTED_MINORS = [8, 9, 10, 11, 12, 13];

/** The pyenv root, or undefined when pyenv is not installed. */
export function findPyenvRoot(): string | undefined {
  if (process.env.PYENV_ROOT && existsSync(process.env.PYENV_ROOT)) return process.env.PYENV_ROOT;
  try {
    return execFileSync("pyenv", ["root"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    const guess = join(process.env.HOME ?? "/root", ".pyenv");
    return existsSync(guess) ? guess : undefined;
  }
}

/** Map of "3.X" → real interpreter path for each supported minor version found. */
export function findSupportedInterpreters(): Map<string, string> {
  const found = new Map<string, string>();
  const root = findPyenvRoot();
  if (!root || !existsSync(join(root, "versions"))) return found;
  for (const version of readdirSync(join(root, "versions")).sort()) {
    const match = /^3\.(\d+)\.\d+$/.exec(version);
    if (!match || !SUPPORTED_MINORS.includes(Number(match[1]))) continue;
    const binary = join(root, "versions", version, "bin", "python3");
    if (existsSync(binary)) found.set(`3.${match[1]}`, binary);
  }
  return found;
}

/** The "current" library leg (numpy 2, pandas 3, IPython 9, polars, Pillow 12 in a venv that .ci/run makes):
 * EVALKIT_TEST_PYTHON_CURRENT, else the repository's .venv-current, else undefined. */
export function findCurrentLegPython(): string | undefined {
  const explicit = process.env.EVALKIT_TEST_PYTHON_CURRENT;
  if (explicit) return explicit;
  const local = join(process.cwd(), ".venv-current", "bin", "python");
  return existsSync(local) ? local : undefined;
}
