import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
let kernel: JsKernel;

beforeAll(async () => {
  kernel = new JsKernel({ cwd: repoRoot });
  await kernel.start();
});
afterAll(async () => {
  await kernel.shutdown();
});

function resultText(outputs: KernelOutput[]): string | undefined {
  const result = outputs.find((o) => o.type === "result");
  return result?.type === "result" ? (result.data["text/plain"] as string) : undefined;
}

describe("JsKernel state", () => {
  it("keeps let, const, function and class declarations visible in later cells", async () => {
    await kernel.execute(
      "let counter = 1;\nconst base = 10;\nfunction twice(n) { return 2 * n }\nclass Box { constructor(v) { this.v = v } }",
    );
    const outcome = await kernel.execute("counter += 1;\ntwice(base) + counter + new Box(3).v");
    expect(outcome.status).toBe("ok");
    expect(resultText(outcome.outputs)).toBe("25");
  });

  it("lets a later cell declare the same const again, like Node's REPL", async () => {
    await kernel.execute("const again = 1");
    const outcome = await kernel.execute("const again = 2;\nagain");
    expect(outcome.status).toBe("ok");
    expect(resultText(outcome.outputs)).toBe("2");
  });

  it("binds every name of a destructuring declaration", async () => {
    await kernel.execute("const { p, q: [r, ...rest] } = { p: 'P', q: [1, 2, 3] }");
    const outcome = await kernel.execute("[p, r, rest]");
    expect(resultText(outcome.outputs)).toBe("[ 'P', 1, [ 2, 3 ] ]");
  });

  it("supports top-level await and keeps declarations made after it", async () => {
    const outcome = await kernel.execute(
      "const started = Date.now();\nawait new Promise((r) => setTimeout(r, 50));\nconst waited = Date.now() - started;\nwaited >= 40",
    );
    expect(resultText(outcome.outputs)).toBe("true");
    expect(resultText((await kernel.execute("typeof waited")).outputs)).toBe("'number'");
  });

  it("counts executions and leaves silent cells out of the count", async () => {
    const first = await kernel.execute("1");
    const silent = await kernel.execute("2", { silent: true });
    const next = await kernel.execute("3");
    expect(silent.executionCount).toBeNull();
    expect(silent.outputs).toEqual([]);
    expect(next.executionCount).toBe((first.executionCount ?? 0) + 1);
  });
});

describe("JsKernel results", () => {
  it("shows the last expression with util.inspect for several types", async () => {
    expect(resultText((await kernel.execute("40 + 2")).outputs)).toBe("42");
    expect(resultText((await kernel.execute("'text'")).outputs)).toBe("'text'");
    expect(resultText((await kernel.execute("new Map([[1, 'a']])")).outputs)).toBe("Map(1) { 1 => 'a' }");
    expect(resultText((await kernel.execute("10n ** 20n")).outputs)).toBe("100000000000000000000n");
  });

  it("adds application/json for plain data only", async () => {
    const data = (await kernel.execute("({ a: [1, 'x', null], b: { c: true } })")).outputs[0];
    expect(data).toEqual({
      type: "result",
      data: {
        "text/plain": "{ a: [ 1, 'x', null ], b: { c: true } }",
        "application/json": { a: [1, "x", null], b: { c: true } },
      },
    });
    const instance = (await kernel.execute("new (class Point { constructor() { this.x = 1 } })()"))
      .outputs[0];
    expect(instance?.type === "result" && "application/json" in instance.data).toBe(false);
  });

  it("gives no result for undefined or a trailing declaration", async () => {
    expect((await kernel.execute("undefined")).outputs).toEqual([]);
    expect((await kernel.execute("const nothingShown = 5")).outputs).toEqual([]);
  });

  it("awaits a promise left as the last expression", async () => {
    const outcome = await kernel.execute("new Promise((r) => setTimeout(() => r('later'), 20))");
    expect(resultText(outcome.outputs)).toBe("'later'");
  });
});

describe("JsKernel streams", () => {
  it("sends console output to stdout and stderr in the order it happened", async () => {
    const seen: KernelOutput[] = [];
    const outcome = await kernel.execute(
      "console.log('one', { k: 1 }); console.error('two'); console.info('three'); console.debug('%s-%d', 'four', 4); console.warn('five'); void process.stdout.write('six\\n')",
      { onOutput: (o) => seen.push(o) },
    );
    expect(outcome.outputs).toEqual([
      { type: "stream", name: "stdout", text: "one { k: 1 }\n" },
      { type: "stream", name: "stderr", text: "two\n" },
      { type: "stream", name: "stdout", text: "three\nfour-4\n" },
      { type: "stream", name: "stderr", text: "five\n" },
      { type: "stream", name: "stdout", text: "six\n" },
    ]);
    expect(seen.map((o) => (o.type === "stream" ? o.text : "")).join("")).toBe(
      "one { k: 1 }\ntwo\nthree\nfour-4\nfive\nsix\n",
    );
  });

  it("never sends a stream event larger than 32 KiB", async () => {
    let largest = 0;
    let total = 0;
    await kernel.execute(
      "console.log('é'.repeat(200000)); for (let i = 0; i < 5000; i++) console.log('line', i)",
      {
        onOutput: (o) => {
          if (o.type !== "stream") return;
          largest = Math.max(largest, Buffer.byteLength(o.text));
          total += o.text.length;
        },
      },
    );
    expect(largest).toBeLessThanOrEqual(32 * 1024);
    expect(total).toBe(200001 + Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("").length);
  });

  it("reports errors thrown after the cell ended on stderr of the next cell", async () => {
    await kernel.execute("setTimeout(() => { throw new Error('late boom') }, 5); 1");
    await new Promise((r) => setTimeout(r, 100));
    const outcome = await kernel.execute("'next'");
    expect(outcome.status).toBe("ok");
    const stderr = outcome.outputs.find((o) => o.type === "stream" && o.name === "stderr");
    expect(stderr?.type === "stream" && stderr.text).toContain("Error: late boom");
  });
});

describe("JsKernel errors", () => {
  it("refuses process.kill aimed at the host or at every process, and still signals its own children", async () => {
    // Signal 0 only probes, so this test cannot take the test runner down even if the guard were missing.
    for (const target of ["process.ppid", "-1"]) {
      const outcome = await kernel.execute(`process.kill(${target}, 0)`);
      expect(outcome.error?.evalue, target).toMatch(/would signal the evalkit host or every process/);
    }
    const own = await kernel.execute("process.kill(process.pid, 0)");
    expect(resultText(own.outputs)).toBe("true");
    const child = await kernel.execute(
      "const { spawn } = await import('node:child_process');\nconst sleeper = spawn('sleep', ['30']);\nawait new Promise((r) => sleeper.once('spawn', r));\nprocess.kill(sleeper.pid, 'SIGKILL')",
    );
    expect(resultText(child.outputs)).toBe("true");
  });

  it("reports a thrown error with its name, message and stack lines pointing at the cell", async () => {
    const outcome = await kernel.execute("function fail() {\n  throw new TypeError('bad input')\n}\nfail()");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.ename).toBe("TypeError");
    expect(outcome.error?.evalue).toBe("bad input");
    const cell = `<cell ${outcome.executionCount}>`;
    expect(outcome.error?.traceback).toEqual([
      "TypeError: bad input",
      `    at fail (${cell}:2:9)`,
      `    at ${cell}:4:1`,
    ]);
  });

  it("reports a rejected promise awaited at top level with the cell's line", async () => {
    const outcome = await kernel.execute("await null;\nawait Promise.reject(new RangeError('nope'))");
    expect(outcome.error).toEqual({
      ename: "RangeError",
      evalue: "nope",
      traceback: ["RangeError: nope", `    at <cell ${outcome.executionCount}>:2:22`],
    });
  });

  it("reports syntax errors with the offending line", async () => {
    const outcome = await kernel.execute("let ok = 1;\nlet broken = ;");
    expect(outcome.error?.ename).toBe("SyntaxError");
    expect(outcome.error?.traceback).toContain("let broken = ;");
  });

  it("keeps earlier state after a failing cell", async () => {
    await kernel.execute("const survivor = 'still here'");
    await kernel.execute("throw new Error('x')");
    expect(resultText((await kernel.execute("survivor")).outputs)).toBe("'still here'");
  });
});

describe("JsKernel imports", () => {
  it("imports Node built-ins with import()", async () => {
    const outcome = await kernel.execute(
      "const nodePath = await import('node:path');\nnodePath.posix.join('a', 'b')",
    );
    expect(resultText(outcome.outputs)).toBe("'a/b'");
  });

  it("requires and imports packages installed in the kernel's cwd", async () => {
    const required = await kernel.execute("require('acorn').parse('1', { ecmaVersion: 2020 }).type");
    expect(resultText(required.outputs)).toBe("'Program'");
    const imported = await kernel.execute("import { version } from 'acorn'\nversion");
    expect(resultText(imported.outputs)).toMatch(/^'8\./);
  });

  it("fails an import of a missing package with an error in the cell", async () => {
    const outcome = await kernel.execute("await import('no-such-package-evalkit')");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.evalue).toContain("no-such-package-evalkit");
  });
});

describe("JsKernel web globals", () => {
  it("leaves fetch's module unloaded until a cell uses it, then fetch, Headers and crypto work", async () => {
    const fresh = new JsKernel({ cwd: repoRoot });
    try {
      const isUndiciLoaded = "process.moduleLoadList.some((name) => name.includes('undici'))";
      expect(resultText((await fresh.execute(isUndiciLoaded)).outputs)).toBe("false");
      const used = await fresh.execute(
        "typeof fetch + ' ' + new Headers({ a: '1' }).get('a') + ' ' + typeof crypto.randomUUID()",
      );
      expect(resultText(used.outputs)).toBe("'function 1 string'");
      expect(resultText((await fresh.execute(isUndiciLoaded)).outputs)).toBe("true");
    } finally {
      await fresh.shutdown();
    }
  });

  it("lets a cell replace a lazy global for later cells and delete it", async () => {
    const fresh = new JsKernel({ cwd: repoRoot });
    try {
      expect(resultText((await fresh.execute("fetch = 42; fetch")).outputs)).toBe("42");
      expect(resultText((await fresh.execute("fetch")).outputs)).toBe("42");
      const hidden = await fresh.execute("Object.keys(globalThis).includes('Request')");
      expect(resultText(hidden.outputs)).toBe("false");
      expect(resultText((await fresh.execute("delete globalThis.fetch; typeof fetch")).outputs)).toBe(
        "'undefined'",
      );
    } finally {
      await fresh.shutdown();
    }
  });
});
