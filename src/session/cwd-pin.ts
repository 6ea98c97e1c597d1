// A sandboxed session's working directory is pinned at its first call: a cwd that later became a symlink or was
// moved (a cell can do both when it may write the parent) is refused instead of mounted at its new target.
import { lstatSync } from "node:fs";
import path from "node:path";
import { EvalkitError } from "../errors.js";

/** Where the cwd was when the session started: its real path and the directory's identity there. */
interface CwdPin {
  real: string;
  dev: number;
  ino: number;
}

/** The pins of one manager, by the cwd as the caller spelled it. */
export class CwdPins {
  private readonly pins = new Map<string, CwdPin>();

  /**
   * Pins `given` (resolved to `real`) at its first call; on later calls, CWD_INVALID naming the field when it
   * now resolves elsewhere or the directory at its real path is another one (or a symlink). `lstat`, so a
   * symlink put in the directory's place is seen as one, never followed.
   */
  check(given: string, real: string): void {
    const key = path.resolve(given);
    const pin = this.pins.get(key);
    if (pin === undefined) {
      const stat = lstatSync(real);
      this.pins.set(key, { real, dev: stat.dev, ino: stat.ino });
      return;
    }
    const change = describeChange(pin, real);
    if (change === undefined) return;
    throw new EvalkitError(
      "CWD_INVALID",
      `cwd: the working directory ${JSON.stringify(key)} changed since this sandboxed session started: ${change}; the sandbox does not follow a swapped or moved directory (start a new session to use the new location)`,
      { field: "cwd", cwd: key, pinned: pin.real },
    );
  }
}

function describeChange(pin: CwdPin, real: string): string | undefined {
  if (real !== pin.real) return `it now resolves to ${JSON.stringify(real)}, not ${JSON.stringify(pin.real)}`;
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(pin.real);
  } catch {
    return `${JSON.stringify(pin.real)} is gone`;
  }
  if (stat.isSymbolicLink()) return `${JSON.stringify(pin.real)} is now a symlink`;
  if (!stat.isDirectory() || stat.dev !== pin.dev || stat.ino !== pin.ino) {
    return `${JSON.stringify(pin.real)} is now another directory (the first one was moved or replaced)`;
  }
  return undefined;
}
