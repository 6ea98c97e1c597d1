// Shared pieces of the chaos suite: real session managers that clean up, and /proc checks for leftovers.
import { readdirSync, readFileSync } from "node:fs";
import { afterEach } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome, SessionManagerOptions } from "../../src/session/session-types.js";
import { waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const managers: SessionManager[] = [];

/** A SessionManager on the test interpreter, disposed after the current test. */
export function createManager(options: SessionManagerOptions = {}): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON, interruptGraceMs: 1000, ...options });
  managers.push(manager);
  return manager;
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

/** Stream text and plain-text results of an outcome, in order. */
export function textOf(outcome: SessionCellOutcome): string {
  return outcome.outputs
    .map((o) => (o.type === "stream" ? o.text : o.type === "result" ? String(o.data["text/plain"]) : ""))
    .join("");
}

function readStat(pid: string): { pgrp: number; state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
  } catch {
    return undefined; // ended while we looked
  }
}

/** Live (non-zombie) processes whose process group is `pgid`, read from /proc. */
export function findGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== "Z") members.push(Number(entry));
  }
  return members;
}

/**
 * Waits (up to `timeoutMs`) until no process of the kernel's group nor any of `pids` is alive; returns
 * the survivors (empty when everything is gone). A kernel is its group's leader, so its group holds
 * every process a cell started that did not leave the group on purpose.
 */
export async function findLeftovers(pgid: number, pids: number[] = [], timeoutMs = 5000): Promise<number[]> {
  const survivors = () => [
    ...new Set([...findGroupMembers(pgid), ...pids.filter((pid) => readStat(String(pid))?.state)]),
  ];
  const alive = (pid: number) => {
    const stat = readStat(String(pid));
    return stat !== undefined && stat.state !== "Z";
  };
  await waitFor(() => findGroupMembers(pgid).length === 0 && !pids.some(alive), timeoutMs, 50);
  return survivors().filter(alive);
}

/** The kernel pid serving `sessionId` (asks the kernel; starts one if needed). */
export async function kernelPid(manager: SessionManager, sessionId = "default"): Promise<number> {
  const outcome = await manager.run({ sessionId, code: "import os\nos.getpid()" });
  return Number(textOf(outcome));
}

/** Cell code that points every fd > 2 whose target starts with one of `kinds` at /dev/null, then runs `then`. */
export function sabotage(kinds: string[], then: string): string {
  return [
    "import os",
    "null = os.open('/dev/null', os.O_RDWR)",
    "hit = []",
    "for name in os.listdir('/proc/self/fd'):",
    "    fd = int(name)",
    "    try:",
    "        target = os.readlink('/proc/self/fd/%d' % fd)",
    "    except OSError:",
    "        continue",
    `    if fd > 2 and fd != null and target.startswith((${kinds.map((kind) => JSON.stringify(kind)).join(", ")},)):`,
    "        os.dup2(null, fd)",
    "        hit.append(fd)",
    then,
  ].join("\n");
}
