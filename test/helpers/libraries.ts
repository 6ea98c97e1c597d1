// Gates tests that need a Python library (matplotlib, pandas, …): they skip with a reason where it is missing.

import { execFileSync } from "node:child_process";

/**
 * CI installs the libraries and sets EVALKIT_REQUIRE_PYTHON_LIBS=1, so there a missing library fails the
 * tests instead of skipping them. A developer's `npm test` (with or without EVALKIT_PYTHON_INTEGRATION)
 * skips them, since the README's prerequisites are only Node and a Python.
 */
const isRequired = process.env.EVALKIT_REQUIRE_PYTHON_LIBS === "1";

const cache = new Map<string, boolean>();

function canImport(python: string, module: string): boolean {
  const key = `${python}\0${module}`;
  let found = cache.get(key);
  if (found === undefined) {
    try {
      execFileSync(python, ["-c", `import ${module}`], { stdio: "ignore", timeout: 30_000 });
      found = true;
    } catch {
      found = false;
    }
    cache.set(key, found);
  }
  return found;
}

/** The modules of `modules` that `python` cannot import. */
export function findMissingModules(python: string, modules: readonly string[]): string[] {
  return modules.filter((module) => !canImport(python, module));
}

/**
 * Why tests needing `modules` in `python` must skip, or undefined when they can run (the modules are there, or
 * EVALKIT_REQUIRE_PYTHON_LIBS=1 demands they run). Prints the reason once, so a skipped test is never silent.
 */
export function librarySkipReason(python: string, modules: readonly string[]): string | undefined {
  const missing = findMissingModules(python, modules);
  if (missing.length === 0 || isRequired) return undefined;
  const reason = `${python} lacks ${missing.join(", ")} (CI installs them; set EVALKIT_REQUIRE_PYTHON_LIBS=1 to fail instead)`;
  console.warn(`skipping tests that need ${missing.join(", ")}: ${reason}`);
  return reason;
}

/** A test title that carries its skip reason, so reporters show why it did not run. */
export function titleWithSkip(title: string, reason: string | undefined): string {
  return reason === undefined ? title : `${title} [skipped: ${reason}]`;
}
