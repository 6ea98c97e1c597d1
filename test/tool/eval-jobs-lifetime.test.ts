// Jobs and their session: reset and eviction wait for the job, dispose ends it, quick cells need no handle.
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { cleanupTools, collectToEnd, makeTempDir, makeTool, rejection, TEST_PYTHON } from "./tool-helpers.js";

const managers: SessionManager[] = [];
afterEach(async () => {
  await cleanupTools();
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

/** A job whose first output is its kernel's pid, then silence for `seconds`. */
function pidThenSleep(seconds: number): string {
  return `import os, time\nkept = 'state'\nprint(os.getpid(), flush=True)\ntime.sleep(${seconds})`;
}

const pidOf = (result: EvalToolResult) => Number(result.details.cells[0]?.text.trim());

describe("eval tool jobs and their session", () => {
  it("keeps a job's kernel through a refused reset, other sessions' calls and idle eviction on a shared manager", async () => {
    const cwd = makeTempDir("job-life");
    // One kernel at most and a 300 ms idle eviction: both would take the job's kernel if it were not busy.
    const manager = new SessionManager({ python: TEST_PYTHON, maxKernels: 1, idleEvictMs: 300 });
    managers.push(manager);
    const tool = makeTool({ manager, js: false, cwd, sessionId: "train" });
    const sameSession = makeTool({ manager, js: false, cwd, sessionId: "train" });
    const otherSession = makeTool({ manager, js: false, cwd, sessionId: "other" });
    const first = await tool.execute({
      cells: [{ code: pidThenSleep(2.5) }, { code: "import os\nprint(kept, os.getpid())" }],
      yieldAfter: 0,
    });
    expect(first.details.job?.state).toBe("running");
    const pid = pidOf(first);
    const id = first.details.job!.id;

    for (const input of [{ cells: [{ code: "1", reset: true }] }, { cells: [{ code: "1" }], reset: true }]) {
      const busy = await rejection(sameSession.execute(input));
      expect(busy.code).toBe("SESSION_BUSY");
      expect(busy.message).toContain(`busy with job ${id}`);
    }
    const other = await otherSession.execute({ cells: [{ code: "print('other ran')" }] });
    expect(other.details.cells[0]?.text).toBe("other ran\n");

    // Any tool on the manager may collect the job; the second cell ran in the same, never replaced kernel.
    const returns = await collectToEnd(sameSession, first);
    const last = returns.at(-1)!;
    expect(last.details.job?.state).toBe("done");
    expect(last.details.cells.at(-1)?.text).toBe(`state ${pid}\n`);
    expect(isProcessAlive(pid)).toBe(true);
  }, 60_000);

  it("ends a running job with its tool's dispose: the kernel is gone and the id answers DISPOSED", async () => {
    const tool = makeTool({ js: false });
    const first = await tool.execute({ cells: [{ code: pidThenSleep(120) }], yieldAfter: 0 });
    expect(first.details.job?.state).toBe("running");
    const pid = pidOf(first);
    expect(isProcessAlive(pid)).toBe(true);
    const started = Date.now();
    await tool.dispose();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await waitFor(() => !isProcessAlive(pid), 5000)).toBe(true);
    const after = await rejection(tool.execute({ job: first.details.job!.id, wait: 5 }));
    expect(after.code).toBe("DISPOSED");
  }, 60_000);

  it("ends a running job when the shared manager is disposed, its final return saying cancelled", async () => {
    const manager = new SessionManager({ python: TEST_PYTHON });
    managers.push(manager);
    const tool = makeTool({ manager, js: false });
    const first = await tool.execute({
      cells: [{ code: pidThenSleep(120) }, { code: "print('never')" }],
      yieldAfter: 0,
    });
    const pid = pidOf(first);
    await manager.dispose();
    expect(await waitFor(() => !isProcessAlive(pid), 5000)).toBe(true);
    const last = await tool.execute({ job: first.details.job!.id, wait: 10 });
    expect(last.details.job?.state).toBe("cancelled");
    expect(last.details.ok).toBe(false);
    expect(last.details.cells.map((c) => c.status)).toEqual(["cancelled", "skipped"]);
  }, 60_000);

  it("cancels at once while another call waits on the job: the wait gets the final result, the cancel the state", async () => {
    const tool = makeTool({ js: false });
    const first = await tool.execute({
      cells: [{ code: "import time\nprint('go', flush=True)\ntime.sleep(120)" }, { code: "1" }],
      yieldAfter: 0,
    });
    const id = first.details.job!.id;
    const started = Date.now();
    const waiting = tool.execute({ job: id, wait: 60 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await tool.execute({ job: id, cancel: true });
    const waited = await waiting;
    // Neither sat out the 60 s wait.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(waited.details.job).toEqual({ id, state: "cancelled" });
    expect(waited.details.cells.map((c) => c.status)).toEqual(["cancelled", "skipped"]);
    expect(cancelled.details.job).toEqual({ id, state: "cancelled" });
    expect(cancelled.details.cells).toEqual([]);
    expect(cancelled.content.map((b) => (b.type === "text" ? b.text : "")).join("")).toContain(
      "final result went to the call that was waiting",
    );
  }, 60_000);

  it("returns a quick cell's result as an ordinary call with yieldAfter 0, leaving the session free", async () => {
    const tool = makeTool({ js: false });
    await tool.execute({ cells: [{ code: "1" }] });
    for (const code of ["print('quick')", "1 + 1"]) {
      const result = await tool.execute({ cells: [{ code }], yieldAfter: 0 });
      expect(result.details.job).toBeUndefined();
      expect(result.details.cells[0]?.status).toBe("ok");
    }
    // The very next call runs: no job was left holding the session.
    expect((await tool.execute({ cells: [{ code: "print('next')" }] })).details.cells[0]?.text).toBe(
      "next\n",
    );
  }, 30_000);
});
