// Builds the bubblewrap command prefix that runs a kernel in the sandbox (docs/sandbox.md has the layout and why).
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import type { ResolvedSandbox } from "./sandbox-types.js";

/**
 * The system's software, bound read-only. Not `/`: that would show other users' homes, `/run` (docker.sock,
 * the session bus), `/var`, `/srv`, `/mnt` and whatever else the machine keeps outside these.
 */
export const SYSTEM_ROOTS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix/store",
];

/** What one sandboxed kernel needs besides the defaults. */
export interface SandboxCommandSpec {
  /** The bwrap executable (from the probe). */
  bwrap: string;
  sandbox: ResolvedSandbox;
  /** The kernel's working directory: writable inside the sandbox. */
  cwd: string;
  /** Programs the kernel runs (interpreter, node): their installation prefixes are bound read-only. */
  executables: string[];
  /** The host user's home, hidden behind an empty tmpfs (default `HOME` of the host). */
  home?: string | undefined;
  /** evalkit's own directory (artifacts, managed venv, code cache): never writable by a cell. */
  evalkitHome?: string | undefined;
  /** More paths shown read-only (evalkit's compiled-code cache, the JS runner's package). */
  readOnly?: string[];
}

/** `bwrap ... --` (the command follows). Everything the kernel should see is listed; the rest does not exist. */
export function buildSandboxArgv(spec: SandboxCommandSpec): string[] {
  const args: string[] = [];
  for (const root of SYSTEM_ROOTS) addSystemRoot(args, root);
  args.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/dev/shm",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/var/tmp",
  );
  const home = usableHome(spec.home);
  if (home !== undefined) args.push("--tmpfs", home);
  if (spec.sandbox.network) addResolverConfig(args);

  const cwd = realOrSelf(spec.cwd);
  const writable = [cwd, ...spec.sandbox.writable.map(realOrSelf)];
  const readOnly = new Set<string>();
  for (const executable of spec.executables)
    for (const prefix of installPrefixes(executable)) readOnly.add(prefix);
  for (const extra of spec.readOnly ?? []) if (existsSync(extra)) readOnly.add(realOrSelf(extra));
  // Parents before children: a later mount of a parent would hide what was bound inside it.
  const roBinds = [...readOnly]
    .filter((p) => p !== "/" && !isCovered(p, SYSTEM_ROOTS) && !isCovered(p, writable))
    .sort((a, b) => a.length - b.length);
  for (const p of roBinds) args.push("--ro-bind", p, p);
  for (const p of writable) args.push("--bind", p, p);
  // evalkit's home stays read-only even when it lies inside a writable path: a cell must not plant code in the
  // compiled-code cache or the managed venv that later, unsandboxed kernels would run.
  const evalkitHome = spec.evalkitHome === undefined ? undefined : realOrSelf(spec.evalkitHome);
  if (evalkitHome !== undefined && existsSync(evalkitHome) && isCovered(evalkitHome, writable)) {
    args.push("--ro-bind", evalkitHome, evalkitHome);
  }

  args.push("--chdir", cwd);
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!spec.sandbox.network) args.push("--unshare-net");
  // No capabilities even when the host runs as root; killed with its parent; no terminal to push keys into.
  args.push("--cap-drop", "ALL", "--die-with-parent", "--new-session", "--");
  return [spec.bwrap, ...args];
}

function addSystemRoot(args: string[], root: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(root);
  } catch {
    return;
  }
  // Merged /usr: /bin -> usr/bin stays a symlink, so both spellings of a path work inside.
  if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(root), root);
  else if (stat.isDirectory()) args.push("--ro-bind", root, root);
}

/** With the network kept, DNS needs /etc/resolv.conf's target, which often lives under /run (systemd-resolved). */
function addResolverConfig(args: string[]): void {
  try {
    const target = realpathSync("/etc/resolv.conf");
    if (!isCovered(target, SYSTEM_ROOTS)) args.push("--ro-bind", target, target);
  } catch {
    // no resolver configuration: nothing to show
  }
}

function usableHome(home: string | undefined): string | undefined {
  if (home === undefined || !path.isAbsolute(home)) return undefined;
  const normal = path.resolve(home);
  if (normal === "/" || isCovered(normal, SYSTEM_ROOTS) || normal === "/tmp") return undefined;
  return normal;
}

/**
 * Directories an interpreter needs: its own prefix (`<prefix>/bin/python3`: the venv with its site-packages, or
 * a pyenv version with its standard library), the prefix of the binary it links to, and a venv's base prefix.
 */
export function installPrefixes(executable: string): string[] {
  const prefixes = new Set<string>();
  const add = (file: string) => {
    const dir = path.dirname(file);
    prefixes.add(path.basename(dir) === "bin" || path.basename(dir) === "Scripts" ? path.dirname(dir) : dir);
  };
  const absolute = path.resolve(executable);
  add(absolute);
  const real = realOrSelf(absolute);
  add(real);
  const base = readVenvHome(path.dirname(path.dirname(absolute)));
  if (base !== undefined) add(path.join(realOrSelf(base), "python"));
  return [...prefixes];
}

function readVenvHome(prefix: string): string | undefined {
  try {
    const text = readFileSync(path.join(prefix, "pyvenv.cfg"), "utf8");
    const match = /^\s*home\s*=\s*(.+?)\s*$/m.exec(text);
    return match?.[1];
  } catch {
    return undefined;
  }
}

/** True when `p` is one of `roots` or lies inside one. */
export function isCovered(p: string, roots: readonly string[]): boolean {
  return roots.some((root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
