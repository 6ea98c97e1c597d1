import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_MIME } from "../../../src/contracts/outputs.js";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";
import type { BridgeCall } from "../../../src/kernel/kernel.js";

let kernel: JsKernel;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "evalkit-js-prelude-"));
  kernel = new JsKernel({ cwd: dir, env: { EVALKIT_SAMPLE: "from-host" } });
  await kernel.start();
});
afterAll(async () => {
  await kernel.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe("JS prelude helpers", () => {
  it("display() shows any value as text and passes raw MIME bundles through", async () => {
    const outcome = await kernel.execute(
      "display([1, 2]); display('plain words'); display({ 'text/markdown': '# Title', 'image/png': Buffer.from('png') }, { raw: true })",
    );
    expect(outcome.outputs).toEqual([
      { type: "display", data: { "text/plain": "[ 1, 2 ]", "application/json": [1, 2] } },
      { type: "display", data: { "text/plain": "plain words" } },
      {
        type: "display",
        data: { "text/markdown": "# Title", "image/png": Buffer.from("png").toString("base64") },
      },
    ]);
  });

  it("display() carries a display id and update flag", async () => {
    const outcome = await kernel.execute(
      "display('a', { displayId: 'p' }); display('b', { displayId: 'p', update: true })",
    );
    expect(outcome.outputs).toEqual([
      { type: "display", data: { "text/plain": "a" }, displayId: "p" },
      { type: "display", data: { "text/plain": "b" }, displayId: "p", update: true },
    ]);
  });

  it("log() and phase() emit status displays", async () => {
    const outcome = await kernel.execute("phase('Loading'); log('read 3 files')");
    const events = outcome.outputs.map((o) => (o.type === "display" ? o.data[STATUS_MIME] : undefined));
    expect(events).toEqual([
      { op: "phase", title: "Loading" },
      { op: "log", message: "read 3 files" },
    ]);
  });

  it("env() reads the worker environment and sets entries", async () => {
    const outcome = await kernel.execute(
      "env('EVALKIT_NEW', 'v1'); [env('EVALKIT_SAMPLE'), process.env.EVALKIT_NEW, 'EVALKIT_NEW' in env()]",
    );
    expect(outcome.outputs[0]).toMatchObject({ data: { "application/json": ["from-host", "v1", true] } });
  });

  it("write() creates files relative to the kernel's cwd and read() returns line ranges", async () => {
    const outcome = await kernel.execute(
      "write('sub/notes.txt', 'one\\ntwo\\nthree\\nfour'); read('sub/notes.txt', { offset: 2, limit: 2 })",
    );
    expect(outcome.outputs[0]).toMatchObject({ data: { "text/plain": "'two\\nthree'" } });
    expect(readFileSync(path.join(dir, "sub", "notes.txt"), "utf8")).toBe("one\ntwo\nthree\nfour");
  });

  it("process.cwd() and path.resolve() see the kernel's directory", async () => {
    const outcome = await kernel.execute("[process.cwd(), require('node:path').resolve('x')]");
    expect(outcome.outputs[0]).toMatchObject({ data: { "application/json": [dir, path.join(dir, "x")] } });
  });
});

describe("JS bridge calls", () => {
  it("completion() reaches a registered onCall handler and resolves with its answer", async () => {
    const calls: Array<Pick<BridgeCall, "method" | "params">> = [];
    const outcome = await kernel.execute(
      "const answer = await completion('Say hi', { model: 'small' });\nanswer.text",
      {
        onCall: async ({ method, params }) => {
          calls.push({ method, params });
          return { text: `hi from ${params.model}` };
        },
      },
    );
    expect(calls).toEqual([{ method: "completion", params: { model: "small", prompt: "Say hi" } }]);
    expect(outcome.outputs[0]).toMatchObject({ data: { "text/plain": "'hi from small'" } });
  });

  it("tool.<name>() and agent() send their method and params", async () => {
    const calls: string[] = [];
    await kernel.execute(
      "await tool.grep({ pattern: 'x' }); await tool['web-search']({ q: 1 }); await agent('plan it', { agent: 'task' })",
      {
        onCall: async ({ method, params }) => {
          calls.push(`${method} ${JSON.stringify(params)}`);
          return null;
        },
      },
    );
    expect(calls).toEqual([
      'tool {"name":"grep","args":{"pattern":"x"}}',
      'tool {"name":"web-search","args":{"q":1}}',
      'agent {"agent":"task","prompt":"plan it"}',
    ]);
  });

  it("a failing handler or a missing one becomes an exception in the cell", async () => {
    const failing = await kernel.execute("await completion('x')", {
      onCall: async () => {
        throw new Error("quota exceeded");
      },
    });
    expect(failing.error).toMatchObject({ ename: "Error", evalue: "quota exceeded" });
    const missing = await kernel.execute(
      "let caught;\ntry { await agent('x') } catch (e) { caught = e instanceof Error && e.message }\ncaught",
    );
    expect(missing.outputs[0]).toMatchObject({
      data: { "text/plain": "'no host handler registered for agent()'" },
    });
  });

  it("parallel() runs thunks concurrently and keeps input order", async () => {
    const started: string[] = [];
    const outcome = await kernel.execute(
      "const t0 = Date.now();\nconst out = await parallel(['slow', 'fast', 'mid'].map((p) => () => completion(p)));\n[out, Date.now() - t0 < 900]",
      {
        onCall: async ({ params }) => {
          started.push(String(params.prompt));
          const wait = { slow: 300, fast: 10, mid: 150 }[String(params.prompt)] ?? 0;
          await new Promise((r) => setTimeout(r, wait));
          return `done ${params.prompt}`;
        },
      },
    );
    expect(started).toHaveLength(3);
    expect(outcome.outputs[0]).toMatchObject({
      data: { "application/json": [["done slow", "done fast", "done mid"], true] },
    });
  });

  it("parallel() rejects with the lowest-index error", async () => {
    const outcome = await kernel.execute(
      "await parallel([() => 1, async () => { await new Promise((r) => setTimeout(r, 30)); throw new Error('first') }, () => { throw new Error('second') }])",
    );
    expect(outcome.error).toMatchObject({ ename: "Error", evalue: "first" });
  });
});
