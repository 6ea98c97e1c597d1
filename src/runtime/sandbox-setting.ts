// The `sandbox` option in every form the library takes (`true`, `{ network?, writable? }`, a resolved sandbox),
// turned into one resolved sandbox: writable paths absolute and checked to exist.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { EvalkitError } from "../errors.js";
import type { ResolvedSandbox, SandboxOptions } from "./sandbox-types.js";

/**
 * `undefined` for no sandbox (`false`, absent); else the sandbox with its writable paths resolved against `cwd`.
 * A writable path that does not exist is INVALID_INPUT naming `<field>.writable.<i>`.
 */
export function resolveSandboxSetting(
  setting: boolean | SandboxOptions | undefined,
  cwd: string,
  field = "sandbox",
): ResolvedSandbox | undefined {
  if (setting === undefined || setting === false) return undefined;
  const options = typeof setting === "object" ? setting : {};
  const writable = (options.writable ?? []).map((entry, index) => {
    const full = resolve(cwd, entry);
    if (!exists(full)) {
      throw new EvalkitError(
        "INVALID_INPUT",
        `${field}.writable.${index}: ${JSON.stringify(full)} does not exist (a writable path must exist before the sandbox starts)`,
        { field: `${field}.writable.${index}` },
      );
    }
    return full;
  });
  return { network: options.network === true, writable };
}

/** True when two resolved sandboxes allow the same (network, and the same writable paths in any order). */
export function isSameSandbox(a: ResolvedSandbox | undefined, b: ResolvedSandbox | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.network !== b.network || a.writable.length !== b.writable.length) return false;
  const other = new Set(b.writable);
  return a.writable.every((path) => other.has(path));
}

function exists(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isDirectory() || stat.isFile();
  } catch {
    return false;
  }
}
