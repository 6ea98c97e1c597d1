// Signals for a kernel's whole process group, so nothing a cell started outlives the kernel.

import type { ChildProcess } from "node:child_process";

const isWindows = process.platform === "win32";

/** Send `signal` to the child's process group (the child was spawned as a group leader). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  try {
    if (isWindows) {
      child.kill(signal);
    } else {
      process.kill(-pid, signal);
    }
    return true;
  } catch {
    // The group is already gone (ESRCH): nothing left to signal.
    return false;
  }
}

/** True while any process of the group still exists. */
export function isGroupAlive(pid: number | undefined): boolean {
  if (pid === undefined || isWindows) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves after `ms`, without keeping the event loop alive. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
