// Shared set-up for runtime tests: temp dirs, real venvs, a PATH holding only what a test puts there.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_PYTHON as REAL_PYTHON } from "../helpers/interpreters.js";

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

/** The real interpreter binary of the test run (never a shim). */
export { REAL_PYTHON };

/** Real old interpreters present in this machine image, if any. */
export const OLD_PYTHONS = ["3.7.16", "3.6.15", "2.7.18"]
  .map((v) => `/root/.pyenv/versions/${v}/bin/python${v.startsWith("2") ? "2" : "3"}`)
  .filter((file) => existsSync(file));

const cleanups: string[] = [];

/** A fresh temp dir, removed by {@link removeTempDirs}. */
export function makeTempDir(label = "rt"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `evalkit-${label}-`));
  cleanups.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of cleanups.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Creates a real venv (no pip: fast) at `dir` with `python`. */
export function makeVenv(dir: string, python = REAL_PYTHON): string {
  execFileSync(python, ["-m", "venv", "--without-pip", dir], { stdio: "ignore" });
  return dir;
}

/** A directory holding `python3` as a symlink to `target`; use it as the only PATH entry. */
export function makePathDir(target: string, names: string[] = ["python3"]): string {
  const dir = makeTempDir("path");
  for (const name of names) symlinkSync(target, path.join(dir, name));
  return dir;
}

/** A minimal environment: no venv variables, HOME and EVALKIT_HOME in temp dirs, PATH as given. */
export function makeEnv(pathDirs: string[], extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = makeTempDir("home");
  mkdirSync(path.join(home, "evalkit"), { recursive: true });
  return {
    PATH: pathDirs.join(path.delimiter),
    HOME: home,
    EVALKIT_HOME: path.join(home, "evalkit"),
    ...extra,
  };
}
