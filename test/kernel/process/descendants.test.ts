// Walking and killing the tree below a live process through /proc: what the kill ladder does before TERM and KILL.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
  findDescendants,
  killDescendants,
  killOutsideGroup,
} from "../../../src/kernel/process/descendants.js";
import { isProcessAlive, waitFor } from "../../helpers/processes.js";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    for (const pid of child.pid ? findDescendants(child.pid) : []) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    child.kill("SIGKILL");
  }
});

/** A group leader with one child in its group and one (with a child of its own) in a session of its own. */
async function startTree(): Promise<{ root: number; inGroup: number; outside: [number, number] }> {
  // Labelled lines (the two shells print concurrently); the root then becomes a sleep that never waits.
  const script =
    "sleep 300 & echo A $!; setsid sh -c 'sleep 301 & echo G $!; wait' & echo S $!; exec sleep 299";
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  started.push(child);
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const pidOf = (label: string) => Number(new RegExp(`^${label} (\\d+)$`, "m").exec(out)?.[1]);
  expect(await waitFor(() => ["A", "S", "G"].every((label) => pidOf(label) > 0), 5000), out).toBe(true);
  return { root: child.pid as number, inGroup: pidOf("A"), outside: [pidOf("S"), pidOf("G")] };
}

describe.skipIf(process.platform !== "linux")("the tree below a process", () => {
  it("lists every descendant, in its group or not, parents before children", async () => {
    const tree = await startTree();
    const found = findDescendants(tree.root);
    expect(found).toEqual(expect.arrayContaining([tree.inGroup, ...tree.outside]));
    expect(found.indexOf(tree.outside[0])).toBeLessThan(found.indexOf(tree.outside[1]));
  });

  it("kills only what is outside the root's group (and below it), leaving the group to a polite SIGTERM", async () => {
    const tree = await startTree();
    expect(await killOutsideGroup(tree.root)).toBeGreaterThanOrEqual(2);
    expect(await waitFor(() => tree.outside.every((pid) => !isProcessAlive(pid)), 5000)).toBe(true);
    expect(isProcessAlive(tree.inGroup)).toBe(true);
    expect(isProcessAlive(tree.root)).toBe(true);
  });

  it("kills everything below the root, and leaves the root itself", async () => {
    const tree = await startTree();
    await killDescendants(tree.root);
    expect(
      await waitFor(() => [tree.inGroup, ...tree.outside].every((pid) => !isProcessAlive(pid)), 5000),
    ).toBe(true);
    expect(isProcessAlive(tree.root)).toBe(true);
  });

  it("finds nothing below a pid that does not exist", async () => {
    expect(findDescendants(2 ** 22 + 12345)).toEqual([]);
    expect(await killOutsideGroup(2 ** 22 + 12345)).toBe(0);
  });
});
