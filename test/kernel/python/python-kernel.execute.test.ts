// A real runner executes cells and reports everything they did, in order.

import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { startKernel } from "../../helpers/python.js";

function streams(outputs: KernelOutput[], name: "stdout" | "stderr"): string {
  return outputs
    .filter((o): o is Extract<KernelOutput, { type: "stream" }> => o.type === "stream" && o.name === name)
    .map((o) => o.text)
    .join("");
}

describe("PythonKernel.execute", () => {
  it("reports stdout, stderr and the result in the order they happened", async () => {
    const kernel = await startKernel();
    const seen: KernelOutput[] = [];
    const outcome = await kernel.execute(
      "import sys\nprint('one')\nsys.stdout.flush()\nprint('two', file=sys.stderr)\nsys.stderr.flush()\nprint('three')\n40 + 2",
      { onOutput: (o) => seen.push(o) },
    );
    expect(outcome.status).toBe("ok");
    expect(outcome.executionCount).toBe(1);
    expect(outcome.outputs).toEqual([
      { type: "stream", name: "stdout", text: "one\n" },
      { type: "stream", name: "stderr", text: "two\n" },
      { type: "stream", name: "stdout", text: "three\n" },
      { type: "result", data: { "text/plain": "42" } },
    ]);
    expect(seen.map((o) => o.type)).toEqual(["stream", "stream", "stream", "result"]);
  });

  it("cancels a cell interrupted in the same turn as its execute(), before any of it ran", async () => {
    const kernel = await startKernel();
    const started = performance.now();
    const pending = kernel.execute("import time\ntime.sleep(20)\n'finished'");
    kernel.interrupt();
    const outcome = await pending;
    expect(outcome.status).toBe("error");
    expect(outcome.cancelled).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await kernel.execute("1 + 1")).outputs).toEqual([
      { type: "result", data: { "text/plain": "2" } },
    ]);
  });

  it("runs a cell that starts with a byte-order mark, as Python runs such a file", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("\ufeffx = 41\nx + 1");
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "42" } }]);
  });

  it("keeps state between cells and counts executions", async () => {
    const kernel = await startKernel();
    await kernel.execute("x = 20");
    const outcome = await kernel.execute("x * 2");
    expect(outcome.executionCount).toBe(2);
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "40" } }]);
  });

  it("keeps _ and __ for earlier results and hides a result when the line ends with a semicolon", async () => {
    const kernel = await startKernel();
    await kernel.execute("10");
    await kernel.execute("11");
    const quiet = await kernel.execute("12;");
    expect(quiet.outputs).toEqual([]);
    const history = await kernel.execute("(_, __)");
    expect(history.outputs).toEqual([{ type: "result", data: { "text/plain": "(11, 10)" } }]);
    const none = await kernel.execute("None");
    expect(none.outputs).toEqual([]);
  });

  it("reports a SyntaxError with the caret under the offending source", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("x = 1\ndef broken(:\n    pass");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.ename).toBe("SyntaxError");
    const text = outcome.error?.traceback.join("\n") ?? "";
    expect(text).toContain("def broken(:");
    expect(text).toMatch(/\^/);
    expect(text).toContain("<cell 1>");
  });

  it("shows the cell's own source lines in a runtime traceback and none of the runner's frames", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("def inner():\n    return 1 / 0\n\ninner()");
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ ename: "ZeroDivisionError", evalue: "division by zero" });
    const text = outcome.error?.traceback.join("\n") ?? "";
    expect(text).toContain('File "<cell 1>", line 2, in inner');
    expect(text).toContain("return 1 / 0");
    expect(text).not.toContain("evalkit_kernel");
    const after = await kernel.execute("'still here'");
    expect(after.status).toBe("ok");
  });

  it("runs top-level await", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import asyncio\nawait asyncio.sleep(0.01)\nvalue = await asyncio.sleep(0, result=7)\nvalue",
    );
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "7" } }]);
  });

  it("lets a class defined in a cell be pickled, because cells run in a real __main__", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import pickle, sys\nclass Point:\n    def __init__(self, x): self.x = x\np = pickle.loads(pickle.dumps(Point(3)))\n(p.x, sys.modules['__main__'].Point is Point, 'evalkit_kernel' in dir())",
    );
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "(3, True, False)" } }]);
  });

  it("flushes a partial line before the result that follows it", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("print('partial', end='')\n'value'");
    expect(outcome.outputs).toEqual([
      { type: "stream", name: "stdout", text: "partial" },
      { type: "result", data: { "text/plain": "'value'" } },
    ]);
  });

  it("returns stderr text of a failing cell before its error", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import sys\nsys.stderr.write('warning\\n')\nraise ValueError('bad')",
    );
    expect(outcome.outputs.map((o) => o.type)).toEqual(["stream", "error"]);
    expect(streams(outcome.outputs, "stderr")).toBe("warning\n");
  });
});
