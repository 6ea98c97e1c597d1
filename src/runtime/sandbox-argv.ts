// Builds the bubblewrap command prefix that runs a kernel in the sandbox (docs/sandbox.md has the layout and why).
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import path from "node:path";
import { EvalkitError } from "../errors.js";
import { checkWritablePaths, homesToHide, isCovered, revealsHome } from "./sandbox-guard.js";
import type { ResolvedSandbox } from "./sandbox-types.js";

export { isCovered } from "./sandbox-guard.js";

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
  /**
   * Size cap of each private tmpfs (`/tmp`, `/var/tmp`, `/dev/shm`, `HOME`) in bytes, so a cell under a memory
   * limit cannot fill the host's memory through files there. Needs a bwrap with `--size` (the probe tells).
   */
  tmpfsBytes?: number | undefined;
  /**
   * A seccomp program (sandbox-seccomp.ts) waits on descriptor {@link SECCOMP_FD} of the spawned process:
   * the spawner opens it there ({@link openSeccompStdio}).
   */
  hasSeccompFd?: boolean | undefined;
  /** `cgroup.procs` files the launcher joins before bwrap runs (sandbox-cgroup.ts). */
  cgroupProcs?: readonly string[] | undefined;
}

/**
 * Parts of /proc that reach the whole machine: kernel tunables (`sys`: `kernel.core_pattern` runs a program of
 * the writer's choosing as root on the host, and uid 0 needs no capability to write it), the magic SysRq key,
 * and driver and file-system switches. Bound read-only over the sandbox's own /proc; `/sys` is not shown at all.
 */
export const PROC_READ_ONLY = ["/proc/sys", "/proc/sysrq-trigger"];

/** Never bound, whatever an interpreter's prefix or pyvenv.cfg says: the host's processes, devices and sockets. */
const NEVER_SHOWN = ["/proc", "/sys", "/dev", "/run"];

/** The descriptor bwrap reads the seccomp program from (the spawner opens the file there). */
export const SECCOMP_FD = 9;

/**
 * `stdio` for spawn with the seccomp program opened on {@link SECCOMP_FD} (a fresh open each time: bwrap reads
 * to the end, and a shared offset would leave the next kernel an empty program), and the descriptor to close
 * once the process is spawned. `stdio` unchanged when there is no program.
 */
export function openSeccompStdio(
  stdio: ("pipe" | "ignore")[],
  file: string | undefined,
): { stdio: ("pipe" | "ignore" | number)[]; close: () => void } {
  if (file === undefined) return { stdio, close: () => undefined };
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    // Never a kernel without its filter: the start fails and says why.
    const message = `the sandbox's seccomp program ${file} cannot be opened: ${(err as Error).message}`;
    throw new EvalkitError("SANDBOX_UNAVAILABLE", message, { reason: message }, err);
  }
  const padded: ("pipe" | "ignore" | number)[] = [...stdio];
  while (padded.length < SECCOMP_FD) padded.push("ignore");
  padded[SECCOMP_FD] = fd;
  return { stdio: padded, close: () => closeSync(fd) };
}

/**
 * `sh -c` that joins the kernel's cgroups (its own pid, so bwrap and all it starts are inside from their first
 * instruction), then becomes bwrap (exec: same pid, same group). Only kernels with limits pay for the shell.
 */
const LAUNCH_SCRIPT = [
  "n=$1; shift",
  'while [ "$n" -gt 0 ]; do echo $$ >"$1" || { echo "evalkit: cannot enter the kernel cgroup $1" >&2; exit 125; }; shift; n=$((n-1)); done',
  'exec "$@"',
].join("\n");

/** `bwrap ... --` (the command follows). Everything the kernel should see is listed; the rest does not exist. */
export function buildSandboxArgv(spec: SandboxCommandSpec): string[] {
  const { homes, cwd, writable } = checkSandboxLayout(spec);

  const args: string[] = [];
  const tmpfs = (target: string) => {
    if (spec.tmpfsBytes !== undefined) args.push("--size", String(spec.tmpfsBytes));
    args.push("--tmpfs", target);
  };
  for (const root of SYSTEM_ROOTS) addSystemRoot(args, root);
  args.push("--proc", "/proc", "--dev", "/dev");
  for (const p of PROC_READ_ONLY) args.push("--ro-bind-try", p, p);
  for (const target of ["/dev/shm", "/tmp", "/var/tmp"]) tmpfs(target);
  const home = usableHome(spec.home);
  if (home !== undefined) tmpfs(home);
  if (spec.sandbox.network) addResolverConfig(args);

  const readOnly = new Set<string>();
  const links: [target: string, link: string][] = [];
  for (const executable of spec.executables) {
    for (const prefix of installPrefixes(executable)) {
      // A venv's pyvenv.cfg may be a cell's (in the cwd): its `home` never shows kernel or runtime state.
      if (isCovered(prefix, NEVER_SHOWN)) continue;
      readOnly.add(narrowToHideHomes(prefix, executable, homes));
    }
    const absolute = path.resolve(executable);
    const real = realOrSelf(absolute);
    if (real !== absolute) links.push([real, absolute]);
  }
  for (const extra of spec.readOnly ?? []) {
    if (existsSync(extra) && !revealsHome(realOrSelf(extra), homes)) readOnly.add(realOrSelf(extra));
  }
  // Parents before children: a later mount of a parent would hide what was bound inside it.
  const roBinds = [...readOnly]
    .filter((p) => p !== "/" && !isCovered(p, SYSTEM_ROOTS) && !isCovered(p, writable))
    .sort((a, b) => a.length - b.length);
  for (const p of roBinds) args.push("--ro-bind", p, p);
  for (const p of writable) args.push("--bind", p, p);
  // A symlinked interpreter outside what is shown (uv's ~/.local/bin/python3 -> ~/.local/share/uv/...): the
  // link itself, so the command's path works and the interpreter still finds its prefix through it.
  const shown = [...SYSTEM_ROOTS, ...roBinds, ...writable];
  for (const [target, link] of links) if (!isCovered(link, shown)) args.push("--symlink", target, link);
  // evalkit's home stays read-only even when it lies inside a writable path: a cell must not plant code in the
  // compiled-code cache or the managed venv that later, unsandboxed kernels would run.
  const evalkitHome = spec.evalkitHome === undefined ? undefined : realOrSelf(spec.evalkitHome);
  if (evalkitHome !== undefined && existsSync(evalkitHome) && isCovered(evalkitHome, writable)) {
    args.push("--ro-bind", evalkitHome, evalkitHome);
  }

  args.push("--chdir", cwd);
  // A user namespace always, for root too: any capability the kernel could regain is its namespace's, which
  // owns nothing of the host's.
  args.push("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!spec.sandbox.network) args.push("--unshare-net");
  if (spec.hasSeccompFd) args.push("--seccomp", String(SECCOMP_FD));
  // No capabilities even when the host runs as root; killed with its parent; no terminal to push keys into.
  args.push("--cap-drop", "ALL", "--die-with-parent", "--new-session", "--");
  const procs = spec.cgroupProcs ?? [];
  if (procs.length === 0) return [spec.bwrap, ...args];
  return [
    "/bin/sh",
    "-c",
    LAUNCH_SCRIPT,
    "evalkit-sandbox",
    String(procs.length),
    ...procs,
    spec.bwrap,
    ...args,
  ];
}

/**
 * INVALID_INPUT naming the field when the writable paths would undo the sandbox (a cwd of `/`, the home or the
 * shared /tmp; a writable `/`). Called by the tool before a call's first cell, and again for every kernel.
 */
export function checkSandboxLayout(spec: Pick<SandboxCommandSpec, "sandbox" | "cwd" | "home">): {
  homes: string[];
  cwd: string;
  writable: string[];
} {
  const homes = homesToHide(spec.home);
  const cwd = realOrSelf(spec.cwd);
  const writable = [cwd, ...spec.sandbox.writable.map(realOrSelf)];
  checkWritablePaths(cwd, writable.slice(1), homes);
  return { homes, cwd, writable };
}

/**
 * An interpreter installed straight into a home (`~/bin/python3`, prefix `~`) must not show that home: bind
 * the executable's directory instead, or the executable alone when it sits in the home itself.
 */
function narrowToHideHomes(prefix: string, executable: string, homes: readonly string[]): string {
  if (!revealsHome(prefix, homes)) return prefix;
  const real = realOrSelf(path.resolve(executable));
  const dir = path.dirname(real);
  return revealsHome(dir, homes) ? real : dir;
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
  const real = realOrSelf(absolute);
  add(real);
  const base = readVenvHome(path.dirname(path.dirname(absolute)));
  // A symlink's own prefix only when it is a venv (its site-packages live there); for any other link it could
  // be a whole `~/.local`, and the link is recreated inside instead (buildSandboxArgv).
  if (real === absolute || base !== undefined) add(absolute);
  // Only a base that holds an interpreter: pyvenv.cfg may have been written by a cell to show another folder.
  if (base !== undefined && hasInterpreter(realOrSelf(base))) add(path.join(realOrSelf(base), "python"));
  return [...prefixes];
}

function hasInterpreter(bin: string): boolean {
  return ["python3", "python"].some((name) => existsSync(path.join(bin, name)));
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

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
