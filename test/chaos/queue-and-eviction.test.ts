// Load on the session layer: 100 calls queued on one session run in order; 8 sessions at once under the
// default limit of 4 retained kernels all finish, and the limit holds once they are idle.
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_KERNELS } from "../../src/session/session-manager.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { createManager, findLeftovers, textOf } from "./chaos-helpers.js";

describe("chaos: load on sessions", () => {
  it("completes 100 calls queued at once on one session, in the order they were made", async () => {
    const manager = createManager();
    await manager.run({ code: "seen = []" });
    const finished: number[] = [];
    const calls = Array.from({ length: 100 }, (_, i) =>
      manager.run({ code: `seen.append(${i})\nlen(seen)` }).then((outcome) => {
        finished.push(i);
        return outcome;
      }),
    );
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((o) => o.status)).toEqual(Array(100).fill("ok"));
    expect(outcomes.map((o) => textOf(o))).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    expect(finished).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const last = await manager.run({ code: "seen == list(range(100))" });
    expect(textOf(last)).toBe("True");
  });

  it("runs 8 sessions in parallel with the default limit of 4 and evicts down to 4 idle kernels", async () => {
    expect(DEFAULT_MAX_KERNELS).toBe(4);
    const manager = createManager();
    const sessions = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const outcomes = await Promise.all(
      sessions.map((sessionId, i) =>
        manager.run({
          sessionId,
          code: `import os, time\nmine = ${i}\ntime.sleep(0.3)\nos.getpid()`,
          timeoutSec: 30,
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(Array(8).fill("ok"));
    const pids = outcomes.map((o) => Number(textOf(o)));
    expect(new Set(pids).size).toBe(8);
    // Busy kernels are never evicted, so all 8 ran; once idle, the pool trims to the limit.
    expect(await waitFor(() => pids.filter(isProcessAlive).length <= 4, 8000)).toBe(true);
    expect(manager.kernelCount).toBeLessThanOrEqual(4);
    const alive = pids.filter(isProcessAlive);
    expect(alive.length).toBe(manager.kernelCount);
    // A survivor still has its state; an evicted session gets a fresh kernel and is told so.
    for (const [i, sessionId] of sessions.entries()) {
      const outcome = await manager.run({ sessionId, code: "mine" });
      if (alive.includes(pids[i]!) && outcome.notices.length === 0) {
        expect(textOf(outcome)).toBe(String(i));
      } else {
        expect(outcome.error?.ename).toBe("NameError");
        expect(outcome.notices.join("\n")).toMatch(/evicted to stay within 4 kernels|state was lost/);
      }
      expect(manager.kernelCount).toBeLessThanOrEqual(4);
    }
    await manager.dispose();
    for (const pid of pids) expect(await findLeftovers(pid, [pid])).toEqual([]);
  });
});
