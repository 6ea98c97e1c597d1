// The eval tool on a real Python: multi-cell semantics, state, timeouts, cancellation, exclusivity, updates.
import { afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import type { EvalProgress } from "../../src/tool/run-call.js";
import { cleanupTools, makeTool, TEST_PYTHON, textOf } from "./tool-helpers.js";

afterEach(cleanupTools);

// A 1x1 transparent PNG.
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("eval tool", () => {
  it("is mountable: name, description, JSON Schema input and zod schema", () => {
    const tool = makeTool();
    expect(tool.name).toBe("eval");
    expect(tool.description).toContain("cells");
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.zodSchema.safeParse({ cells: [{ code: "1" }] }).success).toBe(true);
  });

  it("runs cells in order and reports each one with output, result and execution count", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [
        { code: "x = 41\nprint('hello')", title: "setup" },
        { code: "x + 1", language: "python" },
      ],
    });
    expect(result.details.ok).toBe(true);
    const [first, second] = result.details.cells;
    expect(first).toMatchObject({ index: 0, title: "setup", language: "py", status: "ok", text: "hello\n" });
    expect(first?.outputs).toEqual([{ type: "stream", name: "stdout", text: "hello\n" }]);
    expect(second).toMatchObject({ index: 1, language: "py", status: "ok", text: "42\n" });
    expect(second?.outputs).toEqual([{ type: "result", data: { "text/plain": "42" } }]);
    expect(second!.executionCount).toBe(first!.executionCount! + 1);
    expect(first!.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.content).toEqual([
      { type: "text", text: "[1/2] setup\nhello" },
      { type: "text", text: "[2/2] python\n42" },
    ]);
  });

  it("stops at the first failing cell, reports later cells as skipped and keeps earlier state", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [{ code: "kept = 'still here'" }, { code: "1/0", title: "boom" }, { code: "print('never')" }],
    });
    expect(result.details.ok).toBe(false);
    expect(result.details.cells.map((c) => c.status)).toEqual(["ok", "error", "skipped"]);
    const failed = result.details.cells[1]!;
    expect(failed.error?.ename).toBe("ZeroDivisionError");
    expect(failed.text).toContain("ZeroDivisionError: division by zero");
    expect(failed.outputs.some((o) => o.type === "error")).toBe(true);
    const skipped = result.details.cells[2]!;
    expect(skipped).toMatchObject({ executionCount: null, outputs: [], text: "" });
    expect(textOf(result)).toContain("[2/3] boom (error)");
    expect(textOf(result)).toContain(
      '[3/3] python (skipped)\n[notice] not run: cell 2 ended with status "error"',
    );
    expect(textOf(result)).not.toContain("never");

    const next = await tool.execute({ cells: [{ code: "kept" }] });
    expect(next.details.cells[0]?.text).toBe("'still here'\n");
  });

  it("in per-call mode gives every call fresh state", async () => {
    const tool = makeTool({ mode: "per-call" });
    await tool.execute({ cells: [{ code: "y = 1" }] });
    const result = await tool.execute({ cells: [{ code: "y" }] });
    expect(result.details.cells[0]?.status).toBe("error");
    expect(result.details.cells[0]?.error?.ename).toBe("NameError");
  });

  it("resets the interpreter for a cell with reset, and before the first cell for a call-level reset", async () => {
    const tool = makeTool();
    await tool.execute({ cells: [{ code: "z = 1" }] });
    const perCell = await tool.execute({ cells: [{ code: "z = 2" }, { code: "z", reset: true }] });
    expect(perCell.details.cells[1]?.error?.ename).toBe("NameError");
    expect(perCell.details.cells[1]?.notices?.join("\n")).toContain("reset");

    await tool.execute({ cells: [{ code: "w = 1" }] });
    const callLevel = await tool.execute({
      reset: true,
      cells: [{ code: "'w' in globals()" }, { code: "w = 5" }, { code: "w" }],
    });
    expect(callLevel.details.cells.map((c) => c.text)).toEqual(["False\n", "", "5\n"]);
  });

  it("times a cell out, skips the rest, keeps the kernel and its state", async () => {
    const tool = makeTool();
    const started = Date.now();
    const result = await tool.execute({
      cells: [
        { code: "before = 7" },
        { code: "import time\ntime.sleep(30)", timeout: 1 },
        { code: "print('x')" },
      ],
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.details.cells.map((c) => c.status)).toEqual(["ok", "timeout", "skipped"]);
    expect(result.details.cells[1]?.notices?.join("\n")).toMatch(/timed out/);
    expect(textOf(result)).toMatch(/\[notice\] .*timed out/);
    const after = await tool.execute({ cells: [{ code: "before" }] });
    expect(after.details.cells[0]?.text).toBe("7\n");
  });

  it("applies the call-level timeout to cells that set none", async () => {
    const tool = makeTool();
    const result = await tool.execute({ timeout: 1, cells: [{ code: "import time\ntime.sleep(30)" }] });
    expect(result.details.cells[0]?.status).toBe("timeout");
  });

  it("cancels the running cell when the caller aborts", async () => {
    const tool = makeTool();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const result = await tool.execute(
      { cells: [{ code: "import time\ntime.sleep(30)" }, { code: "print(1)" }] },
      { signal: controller.signal },
    );
    expect(result.details.cells.map((c) => c.status)).toEqual(["cancelled", "skipped"]);
  });

  it("never interleaves two concurrent calls on one tool", async () => {
    // Per-call mode: the session layer would let these overlap, so only the tool's own queue orders them.
    const tool = makeTool({ mode: "per-call" });
    const slow = tool.execute({
      cells: [
        { code: "import time\nprint('a-start', time.time())\ntime.sleep(0.6)\nprint('a-end', time.time())" },
      ],
    });
    const fast = tool.execute({ cells: [{ code: "import time\nprint('b-start', time.time())" }] });
    const [a, b] = await Promise.all([slow, fast]);
    const stamp = (text: string | undefined, label: string) =>
      Number(new RegExp(`${label} ([0-9.]+)`).exec(text ?? "")?.[1]);
    const aEnd = stamp(a.details.cells[0]?.text, "a-end");
    const bStart = stamp(b.details.cells[0]?.text, "b-start");
    expect(Number.isFinite(aEnd) && Number.isFinite(bStart)).toBe(true);
    expect(bStart).toBeGreaterThanOrEqual(aEnd);
  });

  it("streams partial output through onUpdate while a cell runs", async () => {
    const tool = makeTool({ updateIntervalMs: 50 });
    const updates: EvalProgress[] = [];
    const result = await tool.execute(
      {
        cells: [
          { code: "print('first')" },
          { code: "import time\nfor i in range(6):\n    print('tick', i, flush=True)\n    time.sleep(0.1)" },
        ],
      },
      { onUpdate: (progress) => updates.push(progress) },
    );
    expect(result.details.ok).toBe(true);
    const partial = updates.filter((u) => u.running?.index === 1 && u.running.text.includes("tick 0"));
    expect(partial.some((u) => !u.running!.text.includes("tick 5"))).toBe(true);
    // While cell 2 runs, cell 1 is already finished in details.
    expect(partial[0]?.details.cells.map((c) => c.status)).toEqual(["ok"]);
    expect(partial[0]?.content.at(-1)).toMatchObject({ type: "text" });
  });

  it("returns displayed images as image blocks and notes them in the text", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [{ code: `display({"image/png": "${PNG_1X1}", "text/plain": "<a pixel>"}, raw=True)` }],
    });
    expect(result.content).toContainEqual({ type: "image", data: PNG_1X1, mimeType: "image/png" });
    expect(result.details.cells[0]?.text).toContain("[image 1: image/png 1x1");
    expect(result.details.cells[0]?.outputs[0]).toMatchObject({ type: "display" });
  });

  it("attaches at most 10 images per cell and notes the rest, with or without display updates", async () => {
    const tool = makeTool();
    const show = `display({"image/png": "${PNG_1X1}"}, raw=True)`;
    for (const extra of ["", `\nh = display("x", display_id=True)\nh.update("y")`]) {
      const result = await tool.execute({ cells: [{ code: `for _ in range(12):\n    ${show}${extra}` }] });
      expect(result.content.filter((block) => block.type === "image")).toHaveLength(10);
      expect(result.details.cells[0]?.text).toContain("[image 10: image/png 1x1");
      expect(result.details.cells[0]?.text).toContain("not attached, the cell already shows 10 images");
      expect(
        result.details.cells[0]?.outputs.filter((o) => o.type === "display").length,
      ).toBeGreaterThanOrEqual(12);
    }
  });

  it("shows the final state of updated displays", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [
        {
          code: "h = display('step 0', display_id=True)\nfor i in range(1, 4):\n    h.update('step %d' % i)\nprint('done')",
        },
      ],
    });
    const text = result.details.cells[0]?.text ?? "";
    expect(text).toContain("'step 3'");
    expect(text).not.toContain("'step 1'");
    expect(text).toContain("done");
  });

  it("reports a host-side failure (interpreter that cannot start) as the cell's error, not a throw", async () => {
    const tool = makeTool({ python: "/no/such/python3", js: false });
    const result = await tool.execute({ cells: [{ code: "1" }, { code: "2" }] });
    expect(result.details.cells.map((c) => c.status)).toEqual(["error", "skipped"]);
    expect(result.details.cells[0]?.error?.ename).toBe("PythonUnavailable");
    expect(result.details.cells[0]?.error?.evalue).toContain("/no/such/python3");
  });

  it("throws INVALID_INPUT for invalid input and DISPOSED after dispose, and dispose stops its kernels", async () => {
    const tool = makeTool();
    await expect(tool.execute({ cells: [] })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    const result = await tool.execute({ cells: [{ code: "import os\nos.getpid()" }] });
    const pid = Number(result.details.cells[0]?.text);
    expect(pid).toBeGreaterThan(0);
    await tool.dispose();
    expect(() => process.kill(pid, 0)).toThrow();
    const err = await tool.execute({ cells: [{ code: "1" }] }).catch((e: unknown) => e);
    expect(isEvalkitError(err, "DISPOSED")).toBe(true);
  });

  it("keeps what a cell printed before its interpreter died: the collector holds the only copy", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [{ code: "import os, sys\nprint('before the end')\nsys.stdout.flush()\nos._exit(3)" }],
    });
    const cell = result.details.cells[0];
    expect(cell?.status).toBe("died");
    expect(cell?.text).toContain("before the end");
    expect(cell?.outputs).toContainEqual({ type: "stream", name: "stdout", text: "before the end\n" });
    expect(cell?.notices?.join("\n")).toContain("exit code 3");
  });

  it("works with no options at all", async () => {
    const { createEvalTool } = await import("../../src/tool/eval-tool.js");
    const previous = process.env.EVALKIT_PYTHON;
    // The default search honours EVALKIT_PYTHON; point it at the test interpreter so the test is deterministic.
    process.env.EVALKIT_PYTHON = TEST_PYTHON;
    const tool = createEvalTool({});
    try {
      const result = await tool.execute({ cells: [{ code: "print('out of the box')" }] });
      expect(result.details.cells[0]?.text).toBe("out of the box\n");
    } finally {
      await tool.dispose();
      if (previous === undefined) delete process.env.EVALKIT_PYTHON;
      else process.env.EVALKIT_PYTHON = previous;
    }
  });
});
