// Refuses sandbox layouts that would undo the sandbox: a writable `/`, a cwd that shows the home or the shared /tmp.
import { userInfo } from "node:os";
import path from "node:path";
import { EvalkitError } from "../errors.js";

/**
 * The host's shared temporary directories. As a cwd they would be bound writable over the private tmpfs, with
 * other programs' files and Unix sockets in them (tmux, X11, ssh-agent): a socket there reaches outside the
 * sandbox whatever the network namespace says.
 */
const SHARED_TEMP = ["/tmp", "/var/tmp", "/dev/shm"];

/** The homes to keep out of sight: `HOME` as the kernel gets it and the account's home from the password file. */
export function homesToHide(home: string | undefined): string[] {
  const homes = new Set<string>();
  if (home !== undefined && path.isAbsolute(home)) homes.add(path.resolve(home));
  try {
    const fromPasswd = userInfo().homedir;
    if (fromPasswd && path.isAbsolute(fromPasswd)) homes.add(path.resolve(fromPasswd));
  } catch {
    // no password entry (a container's arbitrary uid): HOME is all there is
  }
  return [...homes].filter((h) => h !== "/");
}

/**
 * INVALID_INPUT naming the field when a writable path would expose what the sandbox hides. `cwd` is chosen by
 * default (the process's cwd), so it gets the strict checks; paths in `writable` were asked for one by one and
 * only `/` is refused (bound writable it would replace the whole view, /dev and /proc included).
 */
export function checkWritablePaths(cwd: string, writable: readonly string[], homes: readonly string[]): void {
  for (const [index, p] of writable.entries()) {
    if (p === "/") {
      throw new EvalkitError(
        "INVALID_INPUT",
        `sandbox.writable.${index}: "/" cannot be writable inside the sandbox (it would show the whole machine)`,
        { field: `sandbox.writable.${index}` },
      );
    }
  }
  const hint = "run evalkit from a project directory or pass one as the cwd (--cwd DIR, the cwd option)";
  if (cwd === "/") {
    throw new EvalkitError(
      "INVALID_INPUT",
      `cwd: the sandbox cannot use "/" as the writable working directory (it would show the whole machine); ${hint}`,
      { field: "cwd", cwd },
    );
  }
  if (SHARED_TEMP.includes(cwd)) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `cwd: the sandbox cannot make the host's shared ${cwd} writable (other programs' files and sockets live there); use a directory inside it instead`,
      { field: "cwd", cwd },
    );
  }
  const home = homes.find((h) => h === cwd || h.startsWith(`${cwd}/`));
  if (home !== undefined) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `cwd: ${JSON.stringify(cwd)} ${home === cwd ? "is" : "contains"} the home directory ${JSON.stringify(home)}, which the sandbox hides (~/.ssh, ~/.aws, shell history); ${hint}`,
      { field: "cwd", cwd },
    );
  }
}

/** True when `p` is one of `roots` or lies inside one. */
export function isCovered(p: string, roots: readonly string[]): boolean {
  return roots.some((root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`));
}

/** True when showing `p` would show one of `homes` (it is a home or contains one). */
export function revealsHome(p: string, homes: readonly string[]): boolean {
  return homes.some((home) => isCovered(home, [p]));
}
