// Signals for a kernel's whole process group, so nothing a cell started outlives the kernel.

import { type ChildProcess, spawn } from "node:child_process";
import { openSeccompStdio } from "../../runtime/sandbox-argv.js";
import { KERNEL_TAG_NAME } from "./process-tree.js";

const isWindows = process.platform === "win32";

/** How a kernel's process is started: its command line, where, with what, and its tree's tag. */
export interface KernelSpawn {
  command: string;
  args: string[];
  cwd?: string | undefined;
  env: Record<string, string>;
  stdio: ("pipe" | "ignore")[];
  /** Inherited by everything the kernel starts: how its strays are found once it is gone (process-tree.ts). */
  tag: string;
  /** The sandbox's seccomp program, handed to bwrap on an extra descriptor. */
  seccompFile?: string | undefined;
}

/** Spawns a kernel as the leader of its own process group, its environment carrying the tree's tag. */
export function spawnKernelProcess(options: KernelSpawn): ChildProcess {
  const seccomp = openSeccompStdio(options.stdio, options.seccompFile);
  try {
    return spawn(options.command, options.args, {
      cwd: options.cwd,
      env: { ...options.env, [KERNEL_TAG_NAME]: options.tag },
      stdio: seccomp.stdio,
      detached: !isWindows,
      windowsHide: true,
    });
  } finally {
    seccomp.close();
  }
}

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
