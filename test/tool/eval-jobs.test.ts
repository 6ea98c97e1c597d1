// Jobs through the library: yieldAfter returns a handle, { job, wait } collects, { job, cancel } stops, SESSION_BUSY.
import { statSync } from "node:fs";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import type { CellResult } from "../../src/contracts/cell-result.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";
import { cleanupTools, collectToEnd, makeTempDir, makeTool, rejection, textOf } from "./tool-helpers.js";

// Garbage V8 has not collected yet is not memory the job holds: collect it while sampling RSS.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

afterEach(cleanupTools);

const PRINT_EVERY_SECOND = [
  "import time",
  "for i in range(4):",
  "    print(f'line {i}', flush=True)",
  "    time.sleep(1)",
].join("\n");

/** Cell `index`'s stream text over all returns, in order. */
function streamOf(returns: EvalToolResult[], index: number): string {
  return returns
    .flatMap((r) => r.details.cells.filter((c) => c.index === index))
    .flatMap((c) => c.outputs.flatMap((o) => (o.type === "stream" ? [o.text] : [])))
    .join("");
}

function textsOf(returns: EvalToolResult[], index: number): string {
  return returns
    .flatMap((r) => r.details.cells.filter((c) => c.index === index))
    .map((c) => c.text)
    .join("");
}

describe("eval tool jobs", () => {
  it("returns a running job early, then waits to the end with every line exactly once and later cells run", async () => {
    const tool = makeTool({ js: false });
    await tool.execute({ cells: [{ code: "1" }] }); // a warm kernel: the first line comes before yieldAfter
    const started = Date.now();
    const first = await tool.execute({
      cells: [{ code: PRINT_EVERY_SECOND, title: "ticker" }, { code: "print('after', i)" }],
      yieldAfter: 1.5,
    });
    expect(Date.now() - started).toBeLessThan(3500);
    expect(first.details.job).toEqual({ id: expect.stringMatching(/^job-/), state: "running" });
    expect(first.details.ok).toBe(true);
    expect(first.details.cells).toHaveLength(1);
    expect(first.details.cells[0]?.status).toBe("running");
    expect(first.details.cells[0]?.text).toContain("line 0");
    expect(textOf(first)).toContain("[1/2] ticker (running)");
    expect(textOf(first)).toContain(`{"job": "${first.details.job?.id}", "wait"`);

    const returns = await collectToEnd(tool, first);
    const last = returns.at(-1)!;
    expect(last.details.job).toEqual({ id: first.details.job?.id, state: "done" });
    expect(last.details.ok).toBe(true);
    const expected = "line 0\nline 1\nline 2\nline 3\n";
    expect(streamOf(returns, 0)).toBe(expected);
    expect(textsOf(returns, 0)).toBe(expected);
    const finals = returns.flatMap((r) => r.details.cells).filter((c) => c.status !== "running");
    expect(finals.map((c) => [c.index, c.status])).toEqual([
      [0, "ok"],
      [1, "ok"],
    ]);
    expect(finals[1]?.text).toBe("after 3\n");

    // The final result was returned once: the id is gone, with the reason.
    const gone = await rejection(tool.execute({ job: first.details.job!.id }));
    expect(gone.code).toBe("JOB_NOT_FOUND");
    expect(gone.message).toContain("already returned");
    // The session is free again and kept its state.
    expect((await tool.execute({ cells: [{ code: "print(i)" }] })).details.cells[0]?.text).toBe("3\n");
  }, 60_000);

  it("with yieldAfter 0 returns right after the first output, and a wait of 0 returns at once", async () => {
    const tool = makeTool({ js: false });
    const started = Date.now();
    const first = await tool.execute({
      cells: [
        { code: "import time\ntime.sleep(0.5)\nprint('first', flush=True)\ntime.sleep(3)\nprint('end')" },
      ],
      yieldAfter: 0,
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(3000);
    expect(first.details.cells[0]?.text).toBe("first\n");
    const polled = await tool.execute({ job: first.details.job!.id });
    expect(polled.details.job?.state).toBe("running");
    expect(polled.details.cells[0]?.text).toBe("");
    const returns = await collectToEnd(tool, polled);
    expect(streamOf([first, ...returns], 0)).toBe("first\nend\n");
  }, 30_000);

  it("runs a JavaScript cell as a job the same way, every line once", async () => {
    const tool = makeTool({ py: false });
    const code =
      "for (let i = 0; i < 3; i++) { console.log('tick ' + i); await new Promise((r) => setTimeout(r, 700)); }";
    const first = await tool.execute({ cells: [{ language: "js", code }], yieldAfter: 0.5 });
    expect(first.details.job?.state).toBe("running");
    expect(first.details.cells[0]).toMatchObject({ language: "js", status: "running" });
    const returns = await collectToEnd(tool, first);
    expect(returns.at(-1)?.details.job?.state).toBe("done");
    expect(textsOf(returns, 0)).toBe("tick 0\ntick 1\ntick 2\n");
  }, 30_000);

  it("ends only the wait when a wait's signal aborts: the job runs on and its output waits for the next call", async () => {
    const tool = makeTool({ js: false });
    const first = await tool.execute({
      cells: [
        { code: "import time\nprint('a', flush=True)\ntime.sleep(1)\nprint('b', flush=True)\ntime.sleep(1)" },
      ],
      yieldAfter: 0,
    });
    const id = first.details.job!.id;
    const aborted = await rejection(
      tool.execute({ job: id, wait: 30 }, { signal: AbortSignal.timeout(1500) }),
    );
    expect(aborted.code).toBe("ABORTED");
    const returns = await collectToEnd(tool, { ...first, details: { ...first.details, cells: [] } });
    expect(returns.at(-1)?.details.job?.state).toBe("done");
    expect(streamOf([first, ...returns.slice(1)], 0)).toBe("a\nb\n");
  }, 30_000);

  it("returns an ordinary result, without a job, when the cells end before yieldAfter", async () => {
    const tool = makeTool({ js: false });
    const result = await tool.execute({ cells: [{ code: "print('quick')" }], yieldAfter: 10 });
    expect(result.details.job).toBeUndefined();
    expect(result.details.cells[0]).toMatchObject({ status: "ok", text: "quick\n" });
  }, 30_000);

  it("cancels a job through the interrupt, keeping the session's state as after a timeout", async () => {
    const tool = makeTool({ js: false });
    const first = await tool.execute({
      cells: [
        { code: "kept = 42\nprint('looping', flush=True)\nimport time\nwhile True:\n    time.sleep(0.05)" },
        { code: "print('never')" },
      ],
      // Returns once the loop has started, however slow the kernel start is on a loaded machine.
      yieldAfter: 0,
    });
    expect(first.details.job?.state).toBe("running");
    const cancelled = await tool.execute({ job: first.details.job!.id, cancel: true });
    expect(cancelled.details.job?.state).toBe("cancelled");
    expect(cancelled.details.ok).toBe(false);
    expect(cancelled.details.cells.map((c) => c.status)).toEqual(["cancelled", "skipped"]);
    const after = await tool.execute({ cells: [{ code: "print(kept)" }] });
    expect(after.details.cells[0]?.text).toBe("42\n");
  }, 30_000);

  it("refuses other calls on the session with SESSION_BUSY naming the job, while other sessions run", async () => {
    const cwd = makeTempDir("busy");
    const tool = makeTool({ js: false, cwd, sessionId: "busy" });
    const other = makeTool({ js: false, cwd, sessionId: "other" });
    const first = await tool.execute({
      cells: [{ code: "import time\ntime.sleep(2)\nprint('done')" }],
      yieldAfter: 0.3,
    });
    const id = first.details.job!.id;
    const busy = await rejection(tool.execute({ cells: [{ code: "1" }] }));
    expect(busy.code).toBe("SESSION_BUSY");
    expect(busy.message).toContain(id);
    expect(busy.message).toContain(`{"job": "${id}", "wait"`);
    expect(busy.details).toMatchObject({ job: id, sessionId: "busy" });
    const free = await other.execute({ cells: [{ code: "print('free')" }] });
    expect(free.details.cells[0]?.text).toBe("free\n");
    const returns = await collectToEnd(tool, first);
    expect(returns.at(-1)?.details.job?.state).toBe("done");
    expect((await tool.execute({ cells: [{ code: "print(1)" }] })).details.ok).toBe(true);
  }, 30_000);

  it("gives JOB_NOT_FOUND for an id it never issued, and refuses mixed or misplaced job fields by name", async () => {
    const tool = makeTool({ js: false });
    const unknown = await rejection(tool.execute({ job: "job-nope" }));
    expect(unknown.code).toBe("JOB_NOT_FOUND");
    expect(unknown.message).toContain('"job-nope"');
    const huge = await rejection(tool.execute({ job: "x".repeat(1_000_000) }));
    expect(huge.code).toBe("JOB_NOT_FOUND");
    expect(huge.message.length).toBeLessThan(300);
    const mixed = await rejection(tool.execute({ job: "job-x", cells: [{ code: "1" }] }));
    expect(mixed.code).toBe("INVALID_INPUT");
    expect(mixed.message).toContain("cells: not allowed with job");
    const misplaced = await rejection(tool.execute({ cells: [{ code: "1" }], wait: 3 }));
    expect(misplaced.message).toContain("wait: only allowed with job");
  });

  it.each([
    ["os._exit", "import os\nos._exit(3)"],
    ["SIGKILL", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"],
  ])(
    "reports a job whose kernel dies (%s) as failed with the cell died, and the next call gets a fresh kernel",
    async (_name, death) => {
      const tool = makeTool({ js: false });
      const first = await tool.execute({
        cells: [{ code: `import time\nprint('before', flush=True)\ntime.sleep(1)\n${death}` }, { code: "1" }],
        yieldAfter: 0.3,
      });
      expect(first.details.job?.state).toBe("running");
      const returns = await collectToEnd(tool, first);
      const last = returns.at(-1)!;
      expect(last.details.job?.state).toBe("failed");
      expect(last.details.cells.map((c) => c.status)).toEqual(["died", "skipped"]);
      expect(streamOf(returns, 0)).toBe("before\n");
      const next = await tool.execute({ cells: [{ code: "print('alive')" }] });
      expect(next.details.cells[0]?.text).toContain("alive");
    },
    30_000,
  );

  it("stops a job at its cells' hard timeout, the call's timeout", async () => {
    const tool = makeTool({ js: false });
    const first = await tool.execute({
      cells: [{ code: "import time\nprint('start', flush=True)\ntime.sleep(60)" }],
      timeout: 2,
      yieldAfter: 0.3,
    });
    expect(first.details.job?.state).toBe("running");
    const started = Date.now();
    const returns = await collectToEnd(tool, first);
    expect(Date.now() - started).toBeLessThan(20_000);
    const last = returns.at(-1)!;
    expect(last.details.job?.state).toBe("failed");
    expect(last.details.cells[0]?.status).toBe("timeout");
  }, 40_000);

  it("prints 1 GB from a job with host memory bounded and every byte in the returns' texts and artifacts", async () => {
    const artifactsDir = makeTempDir("job-gb");
    const tool = makeTool({ js: false, artifactsDir });
    const code = [
      "import os",
      "block = b''.join(b'line %07d of a job printing a gigabyte, padded to sixty-four bytes\\n'[:63] + b'\\n' for i in range(16384))",
      "total = 0",
      "while total < 1024 * 1024 * 1024:",
      "    view = memoryview(block)",
      "    while view:",
      "        view = view[os.write(1, view):]",
      "    total += len(block)",
    ].join("\n");
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    let samples = 0;
    const sampler = setInterval(() => {
      if (++samples % 25 === 0) gc();
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = Date.now();
    let returns: EvalToolResult[];
    try {
      const first = await tool.execute({ cells: [{ code, timeout: 600 }], yieldAfter: 1 });
      // A few seconds between returns: each return's stretch goes to its own artifact.
      returns = await collectToEnd(tool, first, 5);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const cells = returns.flatMap((r) => r.details.cells);
    expect(cells.at(-1)?.status).toBe("ok");
    // Nothing lost, nothing twice: each stretch is either whole in its text or whole in its artifact.
    let bytes = 0;
    for (const cell of cells) bytes += stretchBytes(cell, artifactsDir);
    expect(bytes).toBe(1024 * 1024 * 1024);
    for (const r of returns) expect(textOf(r).length).toBeLessThan(200 * 1024);
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
    console.log(
      `1 GB job: ${Date.now() - started} ms over ${returns.length} returns, host RSS growth ${((peak - before) / 1048576).toFixed(1)} MB`,
    );
  }, 300_000);
});

/** Bytes of one return's stretch of a cell: its artifact's size when it was truncated, else its text. */
function stretchBytes(cell: CellResult, artifactsDir: string): number {
  if (cell.truncated === undefined) return Buffer.byteLength(cell.text);
  const file = path.join(artifactsDir, `${cell.truncated.artifact.replace("artifact://", "")}.out`);
  const size = statSync(file).size;
  expect(size).toBe(cell.truncated.totalBytes);
  return size;
}
