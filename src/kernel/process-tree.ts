// Finds what a Python kernel started through /proc (Linux), so processes that left its group die with it.
import { readdirSync, readFileSync, statSync } from "node:fs";

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

/** Pids whose initial environment holds `EVALKIT_KERNEL_TAG=<tag>` (a kernel's descendants, orphaned or not). */
export function findTaggedProcesses(tag: string): number[] {
  if (!hasProc || tag === "") return [];
  const needle = `${KERNEL_TAG_NAME}=${tag}`;
  const found: number[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle)) found.push(pid);
    } catch {
      // another user's process, or gone meanwhile
    }
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

/** Processes of this user on the host (RLIMIT_NPROC counts them all; a sandboxed runner sees only its own). */
export function countOwnProcesses(): number {
  const uid = process.getuid?.();
  if (!hasProc || uid === undefined) return 0;
  let count = 0;
  for (const pid of listPids()) {
    try {
      if (statSync(`/proc/${pid}`).uid === uid) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}
