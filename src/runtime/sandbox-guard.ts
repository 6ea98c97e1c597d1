// Refuses sandbox layouts that would undo the sandbox: a writable `/`, a system area, the home or the shared /tmp.
import { userInfo } from "node:os";
import path from "node:path";
import { EvalkitError } from "../errors.js";

/**
 * The host's shared temporary directories. As a cwd they would be bound writable over the private tmpfs, with
 * other programs' files and Unix sockets in them (tmux, X11, ssh-agent): a socket there reaches outside the
 * sandbox whatever the network namespace says.
 */
const SHARED_TEMP = ["/tmp"]; // /var/tmp and /dev/shm are refused with the system areas, inside them too

/**
 * Areas of the machine that are never a cell's to write, nor its cwd, nor inside either: kernel interfaces
 * (/proc: host processes and their environments; /sys; /dev), runtime state and sockets (/run, /var: docker.sock,
 * the session bus, logs, spools), the system's configuration and software (/etc, /usr, /bin, /sbin, /lib*, /boot,
 * /snap, /nix), root's home, and /home itself (every user's home). /opt, /srv and /mnt are refused themselves
 * (they hold other programs and volumes) but a project directory inside them is allowed.
 */
export const SYSTEM_AREAS = [
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/var",
  "/etc",
  "/boot",
  "/efi",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/snap",
  "/nix",
  "/root",
  "/lost+found",
];

/** Refused as they are, allowed below: parents of many unrelated things. */
const SHARED_PARENTS = ["/home", "/opt", "/srv", "/mnt", "/media", "/tmp/.X11-unix"];

/** The system area `p` is or lies in (INVALID_INPUT follows), or undefined. */
export function findSystemArea(p: string): string | undefined {
  if (SHARED_PARENTS.includes(p)) return p;
  return SYSTEM_AREAS.find((area) => isCovered(p, [area]));
}

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
    refuseSystemArea(`sandbox.writable.${index}`, p, "writable");
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
  refuseSystemArea("cwd", cwd, `the writable working directory; ${hint}`);
  const home = homes.find((h) => h === cwd || h.startsWith(`${cwd}/`));
  if (home !== undefined) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `cwd: ${JSON.stringify(cwd)} ${home === cwd ? "is" : "contains"} the home directory ${JSON.stringify(home)}, which the sandbox hides (~/.ssh, ~/.aws, shell history); ${hint}`,
      { field: "cwd", cwd },
    );
  }
}

function refuseSystemArea(field: string, p: string, role: string): void {
  const area = findSystemArea(p);
  if (area === undefined) return;
  const where = area === p ? "is" : `lies inside ${JSON.stringify(area)}, which is`;
  throw new EvalkitError(
    "INVALID_INPUT",
    `${field}: ${JSON.stringify(p)} ${where} a system area the sandbox never makes writable (host processes, sockets, configuration or software live there); it cannot be ${role}`,
    { field, path: p, area },
  );
}

/** True when `p` is one of `roots` or lies inside one. */
export function isCovered(p: string, roots: readonly string[]): boolean {
  return roots.some((root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`));
}

/** True when showing `p` would show one of `homes` (it is a home or contains one). */
export function revealsHome(p: string, homes: readonly string[]): boolean {
  return homes.some((home) => isCovered(home, [p]));
}
