// A cgroup per sandboxed kernel, so its memory limit counts every page the kernel charges (memfd, shared memory,
// tmpfs) and a process limit holds even for root; found under the host's own cgroup (v1 or delegated v2).
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/** Where this process can make kernel cgroups, or why it cannot (then the limits are rlimits only). */
export type CgroupSupport =
  | { kind: "v1"; memory: string; pids: string | undefined }
  | { kind: "v2"; parent: string; hasPids: boolean }
  | { kind: "none"; reason: string };

/** One kernel's cgroup: the files its launcher writes its pid into, and how it ends. */
export interface KernelCgroup {
  /** `cgroup.procs` files: the launcher joins each before bwrap runs, so every later process is inside. */
  procsFiles: string[];
  /** The memory limit in MB (undefined: none asked for). */
  memoryMb: number | undefined;
  /** True once the kernel's OOM killer fired in this cgroup. */
  wasOomKilled(): boolean;
  /** Removes the cgroup (once its processes are gone; retried a few times, stale ones are swept later). */
  remove(): void;
}

/** Tasks a kernel needs for itself (bwrap's two processes, the interpreter's threads) beyond the cell's processes. */
const OWN_TASKS = 32;
const PREFIX = "evalkit-";
/** A cgroup older than this with no processes is stale even when its host's pid is reused. */
const STALE_MS = 60_000;

let support: CgroupSupport | undefined;
let serial = 0;
let isSwept = false;

/** What this process can do, found once (the answer does not change while evalkit runs). */
export function detectCgroupSupport(): CgroupSupport {
  support ??= findSupport();
  return support;
}

/** For tests: forget the cached answer. */
export function resetCgroupSupport(): void {
  support = undefined;
}

/**
 * A cgroup holding `limits` for one kernel, or undefined where none can be made (the caller says so in a notice).
 * Sweeps cgroups left by a host that was killed (SIGKILL leaves no chance to remove them) on first use.
 */
export function createKernelCgroup(limits: {
  memoryMb?: number | undefined;
  processes?: number | undefined;
}): KernelCgroup | undefined {
  if (limits.memoryMb === undefined && limits.processes === undefined) return undefined;
  const found = detectCgroupSupport();
  if (found.kind === "none") return undefined;
  if (!isSwept) {
    isSwept = true;
    for (const parent of found.kind === "v1" ? [found.memory, found.pids] : [found.parent])
      if (parent) sweepStaleCgroups(parent);
  }
  if (found.kind === "v2" && !enableControllers(found)) return undefined;
  const name = `${PREFIX}${process.pid}-${++serial}`;
  const dirs: string[] = [];
  try {
    if (found.kind === "v1") {
      const memory = path.join(found.memory, name);
      mkdirSync(memory);
      dirs.push(memory);
      if (limits.memoryMb !== undefined) {
        const bytes = String(limits.memoryMb * 1024 * 1024);
        writeFileSync(path.join(memory, "memory.limit_in_bytes"), bytes);
        // memory+swap at the same figure: no page escapes the limit by going to swap.
        const memsw = path.join(memory, "memory.memsw.limit_in_bytes");
        if (existsSync(memsw)) writeFileSync(memsw, bytes);
      }
      if (found.pids !== undefined && limits.processes !== undefined) {
        const pids = path.join(found.pids, name);
        mkdirSync(pids);
        dirs.push(pids);
        writeFileSync(path.join(pids, "pids.max"), String(limits.processes + OWN_TASKS));
      }
    } else {
      const dir = path.join(found.parent, name);
      mkdirSync(dir);
      dirs.push(dir);
      if (limits.memoryMb !== undefined) {
        writeFileSync(path.join(dir, "memory.max"), String(limits.memoryMb * 1024 * 1024));
        const swap = path.join(dir, "memory.swap.max");
        if (existsSync(swap)) writeFileSync(swap, "0");
      }
      if (found.hasPids && limits.processes !== undefined) {
        writeFileSync(path.join(dir, "pids.max"), String(limits.processes + OWN_TASKS));
      }
    }
  } catch {
    removeDirs(dirs);
    return undefined;
  }
  const memoryDir = dirs[0] as string;
  return {
    procsFiles: dirs.map((dir) => path.join(dir, "cgroup.procs")),
    memoryMb: limits.memoryMb,
    wasOomKilled: () => countOomKills(memoryDir, found.kind) > 0,
    remove: () => removeDirs(dirs),
  };
}

/** In words, for doctor and notices: which cgroup holds the limits here. */
export function describeCgroupSupport(found: CgroupSupport = detectCgroupSupport()): string {
  if (found.kind === "v1") return `cgroup v1 (memory${found.pids ? ", pids" : ""}) under ${found.memory}`;
  if (found.kind === "v2") return `cgroup v2 (memory${found.hasPids ? ", pids" : ""}) under ${found.parent}`;
  return `none: ${found.reason}`;
}

function findSupport(): CgroupSupport {
  if (process.platform !== "linux") return { kind: "none", reason: "cgroups are Linux only" };
  let own: string;
  let mounts: string;
  try {
    own = readFileSync("/proc/self/cgroup", "utf8");
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return { kind: "none", reason: "/proc/self/cgroup cannot be read" };
  }
  const memory = v1Dir(own, mounts, "memory");
  if (memory !== undefined) {
    if (!isWritableDir(memory))
      return {
        kind: "none",
        reason: `the memory cgroup ${memory} is not writable by this user (cgroup v1 needs root)`,
      };
    const pids = v1Dir(own, mounts, "pids");
    return { kind: "v1", memory, pids: pids !== undefined && isWritableDir(pids) ? pids : undefined };
  }
  const unified = v2Dir(own, mounts);
  if (unified === undefined)
    return { kind: "none", reason: "no cgroup v1 memory controller and no cgroup v2 mount" };
  return v2Support(unified);
}

/** A v2 cgroup can hold kernels when memory is delegated to it and it is writable (doctor only reads). */
function v2Support(dir: string): CgroupSupport {
  const controllers = readWords(path.join(dir, "cgroup.controllers"));
  if (!controllers.includes("memory")) {
    return { kind: "none", reason: `the memory controller is not delegated to ${dir} (cgroup v2)` };
  }
  if (!isWritableDir(dir)) {
    return { kind: "none", reason: `${dir} is not writable by this user (no delegated cgroup v2 subtree)` };
  }
  return { kind: "v2", parent: dir, hasPids: controllers.includes("pids") };
}

/**
 * Hands memory (and pids) to the children of `dir` before the first kernel cgroup is made there. A cgroup with
 * processes of its own cannot (the "no internal processes" rule): then the limits are rlimits, and from now on
 * every call says so.
 */
function enableControllers(found: Extract<CgroupSupport, { kind: "v2" }>): boolean {
  const subtree = path.join(found.parent, "cgroup.subtree_control");
  const wanted = ["memory", ...(found.hasPids ? ["pids"] : [])];
  const missing = wanted.filter((c) => !readWords(subtree).includes(c));
  if (missing.length === 0) return true;
  const enable = () => writeFileSync(subtree, missing.map((c) => `+${c}`).join(" "));
  try {
    try {
      enable();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EBUSY") throw err;
      // The host itself is a process of the delegated cgroup: it moves to a leaf of its own (what systemd asks
      // of delegated subtrees), and the parent can then hand out controllers if nothing else lives there.
      const leaf = path.join(found.parent, `${PREFIX}host-${process.pid}`);
      if (!existsSync(leaf)) mkdirSync(leaf);
      writeFileSync(path.join(leaf, "cgroup.procs"), String(process.pid));
      enable();
    }
    return true;
  } catch (err) {
    support = {
      kind: "none",
      reason: `memory cannot be enabled for children of ${found.parent} (${(err as Error).message}); run evalkit in a delegated cgroup of its own (systemd-run --user -p Delegate=yes)`,
    };
    return false;
  }
}

/** The directory of this process's cgroup in the v1 hierarchy of `controller`. */
function v1Dir(own: string, mounts: string, controller: string): string | undefined {
  const line = own.split("\n").find((l) => l.split(":")[1]?.split(",").includes(controller));
  if (line === undefined) return undefined;
  const cgroupPath = line.split(":").slice(2).join(":");
  for (const mount of mounts.split("\n")) {
    const [left, right] = mount.split(" - ");
    const fields = left?.split(" ") ?? [];
    const tail = right?.split(" ") ?? [];
    if (tail[0] !== "cgroup" || !(tail[2] ?? "").split(",").includes(controller)) continue;
    return joinMounted(fields[4], fields[3], cgroupPath);
  }
  return undefined;
}

function v2Dir(own: string, mounts: string): string | undefined {
  const line = own.split("\n").find((l) => l.startsWith("0::"));
  if (line === undefined) return undefined;
  for (const mount of mounts.split("\n")) {
    const [left, right] = mount.split(" - ");
    const fields = left?.split(" ") ?? [];
    if (right?.split(" ")[0] !== "cgroup2") continue;
    return joinMounted(fields[4], fields[3], line.slice(3));
  }
  return undefined;
}

/** The cgroup's directory: the mount point plus its path below the mount's root (a cgroup namespace shows "/"). */
function joinMounted(
  mountPoint: string | undefined,
  mountRoot: string | undefined,
  cgroupPath: string,
): string | undefined {
  if (mountPoint === undefined || mountRoot === undefined) return undefined;
  const relative = mountRoot === "/" ? cgroupPath : path.relative(mountRoot, cgroupPath);
  if (relative.startsWith("..")) return undefined;
  const dir = path.join(mountPoint, relative);
  return existsSync(dir) ? dir : undefined;
}

function isWritableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    accessSync(path.join(dir, "cgroup.procs"), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function readWords(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function countOomKills(dir: string, kind: "v1" | "v2"): number {
  try {
    const text = readFileSync(path.join(dir, kind === "v1" ? "memory.oom_control" : "memory.events"), "utf8");
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** rmdir of an empty cgroup; one whose last process is still exiting is tried again shortly. */
function removeDirs(dirs: readonly string[], attempt = 0): void {
  const left = dirs.filter((dir) => {
    try {
      rmdirSync(dir);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "EBUSY";
    }
  });
  if (left.length > 0 && attempt < 20)
    setTimeout(() => removeDirs(left, attempt + 1), 50 * (attempt + 1)).unref();
}

/** Removes `evalkit-<pid>-<n>` cgroups under `parent` with no processes whose host is gone (or that are old). */
export function sweepStaleCgroups(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(parent, name);
    const host = Number(name.slice(PREFIX.length).split("-")[0]);
    try {
      if (readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim() !== "") continue;
      const isOld = Date.now() - statSync(dir).mtimeMs > STALE_MS;
      if (host === process.pid || (isAlive(host) && !isOld)) continue;
      rmdirSync(dir);
    } catch {
      // gone meanwhile, or busy: left for the next sweep
    }
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
