// The one way a kernel's process tree ends, for Python and JS alike: exit request, TERM, the tree below the
// kernel, KILL of the group, then the tag scan for what left the group.
import type { ChildProcess } from "node:child_process";
import { killDescendants, killOutsideGroup } from "./descendants.js";
import { signalGroup } from "./process-group.js";
import { killTaggedProcesses } from "./process-tree.js";

/** How long each rung waits for the process to go. */
export interface LadderGraces {
  /** After the polite exit request (default 1000 ms). */
  exitMs?: number;
  /** After SIGTERM to the group (default 1000 ms). */
  termMs?: number;
  /** After SIGKILL to the group (default 5000 ms). */
  killMs?: number;
}

/** The kernel process as the ladder sees it. */
export interface LadderTarget {
  child: ChildProcess;
  /** Ask the runner to exit on its own (an `exit` frame); omitted when the runner cannot hear it. */
  requestExit?: () => void;
  /** Resolves true once the process has exited, false after `ms`. */
  waitExit: (ms: number) => Promise<boolean>;
}

/**
 * exit request → SIGTERM → SIGKILL, each to the whole process group, with the graces in between. Before the
 * SIGTERM, what is below the kernel but outside its group is killed; before the SIGKILL, everything below it:
 * while the tree is intact, because a subreaper's adopted orphans (the JS kernel's subreaper parent, the Python
 * runner) are only findable as its children, and the runner's death would hand them to init.
 */
export async function climbKillLadder(target: LadderTarget, graces: LadderGraces = {}): Promise<void> {
  if (target.child.pid === undefined) return; // spawn itself failed: there is no process
  if (target.requestExit) {
    target.requestExit();
    if (await target.waitExit(graces.exitMs ?? 1000)) return;
  }
  // What the group's TERM does not reach goes first, while the kernel still holds it (see killOutsideGroup).
  if (isRunning(target.child)) await killOutsideGroup(target.child.pid);
  signalGroup(target.child, "SIGTERM");
  if (await target.waitExit(graces.termMs ?? 1000)) return;
  await killKernelNow(target.child);
  await target.waitExit(graces.killMs ?? 5000);
}

/** SIGKILL for the kernel's whole tree: what is below its process first (while it lives), then its group. */
export async function killKernelNow(child: ChildProcess): Promise<void> {
  if (isRunning(child)) await killDescendants(child.pid);
  signalGroup(child, "SIGKILL");
}

/** Not yet reaped, so its pid is still its own (never walk a tree from a pid that may be someone else's). */
function isRunning(child: ChildProcess): child is ChildProcess & { pid: number } {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/**
 * Called once the kernel process has exited: children the cell left in the group (the runner was killed before
 * it could take them along), and those that left it (own session, orphans), found by the tag they inherited.
 * Never signal the group later: with a small pid_max its id can belong to someone else by then.
 */
export function reapKernelTree(child: ChildProcess, tag: string): void {
  signalGroup(child, "SIGKILL");
  killTaggedProcesses(tag);
}

/** Resolves true when `child` exits within `ms` (at once when it already has), false otherwise. */
export function waitForChildExit(
  child: ChildProcess,
  ms: number,
  hasExited: () => boolean,
): Promise<boolean> {
  if (hasExited()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
