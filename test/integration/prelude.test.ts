// The prelude in a real Python kernel: files, env, stored outputs, progress events and surviving %reset.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import type { ExecuteOutcome } from "../../src/kernel/kernel.js";
import type { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import { startKernel } from "../helpers/python.js";

const HELPERS = [
  "agent",
  "completion",
  "display",
  "env",
  "log",
  "output",
  "parallel",
  "phase",
  "pipeline",
  "read",
  "tool",
  "write",
];

const scratch = mkdtempSync(join(tmpdir(), "evalkit-prelude-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function stdoutOf(outputs: KernelOutput[]): string {
  return outputs.map((o) => (o.type === "stream" && o.name === "stdout" ? o.text : "")).join("");
}

function statusEvents(outputs: KernelOutput[]): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const output of outputs) {
    if (output.type !== "display") continue;
    const event = output.data[STATUS_MIME];
    if (event && typeof event === "object") events.push(event as Record<string, unknown>);
  }
  return events;
}

/** Runs `expression` and returns its value decoded from JSON; a Python error fails the test with its traceback. */
async function evaluate(
  kernel: PythonKernel,
  expression: string,
  options: Parameters<PythonKernel["execute"]>[1] = {},
): Promise<unknown> {
  const outcome = await kernel.execute(`import json as _j\nprint(_j.dumps(${expression}))`, options);
  expectOk(outcome);
  const lines = stdoutOf(outcome.outputs).trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "null");
}

function expectOk(outcome: ExecuteOutcome): void {
  if (outcome.status !== "ok") {
    throw new Error(`cell failed: ${outcome.error?.traceback.join("\n") ?? JSON.stringify(outcome.outputs)}`);
  }
}

describe("the prelude in a real kernel", () => {
  it("puts exactly the documented helpers into the namespace", async () => {
    const kernel = await startKernel();
    expect(
      await evaluate(kernel, "sorted(__import__('evalkit_kernel.prelude.api').prelude.api.__all__)"),
    ).toEqual(HELPERS);
    expect(
      await evaluate(kernel, `[n for n in ${JSON.stringify(HELPERS)} if not callable(globals().get(n))]`),
    ).toEqual([]);
    expect(await evaluate(kernel, "type(tool).__name__")).toBe("ToolNamespace");
  });

  it("round-trips non-ASCII text through write() and read(), creating parent folders", async () => {
    const kernel = await startKernel();
    const path = join(scratch, "made", "by", "wrïte ☃.txt");
    const text = "héllo wörld\r\n日本語\n🐍\n";
    expect(await evaluate(kernel, `write(${JSON.stringify(path)}, ${JSON.stringify(text)})`)).toBe(path);
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(await evaluate(kernel, `read(${JSON.stringify(path)})`)).toBe(text);
    expect(await evaluate(kernel, `read(${JSON.stringify(path)}, offset=2, limit=1)`)).toBe("日本語\n");
  });

  it("reads, sets and lists environment variables with env()", async () => {
    const kernel = await startKernel();
    expect(await evaluate(kernel, "env('EVALKIT_T_VAR', 'ünï')")).toBe("ünï");
    expect(
      await evaluate(kernel, "[env('EVALKIT_T_VAR'), env('EVALKIT_T_NONE'), env()['EVALKIT_T_VAR']]"),
    ).toEqual(["ünï", null, "ünï"]);
    const outcome = await kernel.execute("env('A', 1)");
    expect(outcome.error?.ename).toBe("TypeError");
  });

  it("reads stored full outputs from $EVALKIT_HOME/artifacts with output()", async () => {
    const home = join(scratch, "home");
    mkdirSync(join(home, "artifacts"), { recursive: true });
    writeFileSync(join(home, "artifacts", "AbC-123.out"), "\u001b[1mbold\u001b[0m start\nmiddle\nthe end\n");
    writeFileSync(join(home, "artifacts", "old_one.out"), "old\n");
    utimesSync(join(home, "artifacts", "old_one.out"), 1000, 1000);
    const kernel = await startKernel({
      env: { ...process.env, EVALKIT_HOME: home } as Record<string, string>,
    });
    expect(await evaluate(kernel, "output('artifact://AbC-123', format='stripped', limit=1)")).toBe(
      "bold start",
    );
    expect(await evaluate(kernel, "output('AbC-123', query='end')")).toBe("the end");
    expect(await evaluate(kernel, "[a['id'] for a in output()]")).toEqual(["AbC-123", "old_one"]);
    const missing = await kernel.execute("output('artifact://gone')");
    expect(missing.error?.ename).toBe("FileNotFoundError");
    expect(missing.error?.evalue).toContain("AbC-123, old_one");
  });

  it("reports progress with log() and phase() as status events", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("phase('Collect')\nlog('3 of 5 done')");
    expectOk(outcome);
    expect(statusEvents(outcome.outputs)).toEqual([
      { op: "phase", title: "Collect" },
      { op: "log", message: "3 of 5 done" },
    ]);
  });

  it("rejects bad arguments with TypeError or ValueError naming the helper", async () => {
    const kernel = await startKernel();
    const cases: [string, string, string][] = [
      ["read('x', offset=0)", "ValueError", "read() offset"],
      ["write('x', 3)", "TypeError", "write() content"],
      ["parallel([1])", "TypeError", "parallel() item 0"],
      ["completion(None)", "TypeError", "completion() prompt"],
      ["output('x', format='xml')", "ValueError", "output() format"],
    ];
    for (const [code, ename, text] of cases) {
      const outcome = await kernel.execute(code);
      expect(outcome.error?.ename, code).toBe(ename);
      expect(outcome.error?.evalue, code).toContain(text);
    }
  });

  it("keeps every helper after %reset, even ones the user had rebound", async () => {
    const kernel = await startKernel();
    expectOk(await kernel.execute("read = 1\ndel write\nmine = 2"));
    const reset = await kernel.execute("%reset -f");
    expectOk(reset);
    expect(await evaluate(kernel, `[n for n in ${JSON.stringify(HELPERS)} if n not in globals()]`)).toEqual(
      [],
    );
    expect(await evaluate(kernel, "[callable(read), callable(write), 'mine' in globals()]")).toEqual([
      true,
      true,
      false,
    ]);
  });
});
