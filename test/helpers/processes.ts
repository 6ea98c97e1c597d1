// /proc inspection for leak tests: which processes exist, and waiting for some to disappear.

import { readdirSync, readFileSync } from "node:fs";

/** Pids of live processes whose command line contains every given part (zombies excluded). */
export function findProcesses(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (!parts.every((part) => cmdline.includes(part))) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const processState = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (processState !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** True when the process exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls until `check` holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(check: () => boolean, timeoutMs = 5000, stepMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return check();
}
