// Finds what a Python kernel started through /proc (Linux), so processes that left its group die with it.
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";

/** The environment variable the host sets on each runner; every process the kernel starts inherits it. */
export const KERNEL_TAG_NAME = "EVALKIT_KERNEL_TAG";

const hasProc = process.platform === "linux";

function listPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

// One buffer for every environ read: the scan runs on every kernel exit, over every process of the machine, so
// it reads raw bytes (open, read, close) and searches them, instead of decoding and splitting each environment.
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The whole of /proc/<pid>/environ in `scratch` (grown as needed); its length, or -1 when unreadable. */
function readEnviron(pid: number): number {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, "r");
  } catch {
    return -1; // another user's process, or gone meanwhile
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, length);
        scratch = bigger;
      }
      const n = readSync(fd, scratch, length, scratch.length - length, null);
      if (n === 0) return length;
      length += n;
    }
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/** Whether the NUL-separated entries in `scratch[0, length)` include exactly `entry`. */
function hasEntry(length: number, entry: Buffer): boolean {
  let at = scratch.indexOf(entry, 0);
  while (at !== -1 && at + entry.length <= length) {
    const end = at + entry.length;
    if ((at === 0 || scratch[at - 1] === 0) && (end === length || scratch[end] === 0)) return true;
    at = scratch.indexOf(entry, at + 1);
  }
  return false;
}

/** Pids whose initial environment holds `EVALKIT_KERNEL_TAG=<tag>` (a kernel's descendants, orphaned or not). */
export function findTaggedProcesses(tag: string): number[] {
  if (!hasProc || tag === "") return [];
  const needle = Buffer.from(`${KERNEL_TAG_NAME}=${tag}`, "latin1");
  const found: number[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const length = readEnviron(pid);
    if (length > 0 && hasEntry(length, needle)) found.push(pid);
  }
  return found;
}

/**
 * SIGKILLs every process carrying the kernel's tag. Called when the runner is killed or found dead: the
 * runner's group is signalled separately, this reaches children in their own sessions and orphans.
 */
export function killTaggedProcesses(tag: string): number {
  let killed = 0;
  for (const pid of findTaggedProcesses(tag)) {
    try {
      process.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // exited meanwhile
    }
  }
  return killed;
}

/**
 * Tasks (processes and their threads) of this user on the host: RLIMIT_NPROC counts every thread, so counting
 * processes only left a limit already used up by the host's own threads. A sandboxed runner sees only its own.
 */
export function countOwnProcesses(): number {
  const uid = process.getuid?.();
  if (!hasProc || uid === undefined) return 0;
  let count = 0;
  for (const pid of listPids()) {
    try {
      if (statSync(`/proc/${pid}`).uid === uid) count += readdirSync(`/proc/${pid}/task`).length;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

/**
 * The host pid of a process seen as `nsPid` inside a sandbox's PID namespace (its pid in `ready` frames), found
 * among the kernel's tagged processes by the last entry of their `NSpid` line. Undefined when not found.
 */
export function hostPidInSandbox(tag: string, nsPid: number): number | undefined {
  for (const pid of findTaggedProcesses(tag)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "latin1");
      const line = /^NSpid:\s*(.+)$/m.exec(status)?.[1]?.trim().split(/\s+/);
      if (line && line.length > 1 && Number(line[line.length - 1]) === nsPid) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
