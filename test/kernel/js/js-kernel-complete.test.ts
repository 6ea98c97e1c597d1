// Tab completion through a real JS kernel: the `complete` frame answers from the live context, runs no user code.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
let kernel: JsKernel;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "evalkit-js-complete-"));
  mkdirSync(path.join(dir, "data"));
  writeFileSync(path.join(dir, "data", "train.csv"), "a\n");
  writeFileSync(path.join(dir, "data", "test.csv"), "a\n");
  kernel = new JsKernel({ cwd: dir });
  await kernel.start();
});
afterAll(async () => {
  await kernel.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe("JsKernel.complete", () => {
  it("completes names, properties, object keys, file paths and keywords from the live context", async () => {
    await kernel.execute(
      "const config = { learning_rate: 1, layers: 3 };\nlet dataframe_x = 2;\nconst fs = require('node:fs')",
    );
    expect(await kernel.complete("datafr")).toEqual({ start: 0, matches: ["dataframe_x"] });
    expect((await kernel.complete("x = fs.readFileS")).matches).toEqual(["readFileSync"]);
    expect(await kernel.complete("config['la")).toEqual({ start: 8, matches: ["layers']"] });
    expect(await kernel.complete('config["learn')).toEqual({ start: 8, matches: ['learning_rate"]'] });
    expect(await kernel.complete("config?.lay")).toEqual({ start: 8, matches: ["layers"] });
    expect(await kernel.complete("fs.readFileSync('data/t")).toEqual({
      start: 17,
      matches: ["data/test.csv", "data/train.csv"],
    });
    expect(await kernel.complete("fs.readFileSync('da")).toEqual({ start: 17, matches: ["data/"] });
    expect((await kernel.complete("retu")).matches).toEqual(["return"]);
    // The kernel's own globals and the prelude: process, require, display, completion().
    expect((await kernel.complete("proce")).matches).toEqual(["process"]);
    expect((await kernel.complete("requ")).matches).toEqual(["require"]);
    expect((await kernel.complete("displ")).matches).toEqual(["display"]);
    // Built-ins of the context and Node's own objects, getters included where Node defines them.
    expect((await kernel.complete("JSON.str")).matches).toEqual(["stringify"]);
    expect((await kernel.complete("process.stdout.wri")).matches).toContain("write");
    // The cursor decides; a later line does not matter, and an unknown name gives nothing.
    expect(await kernel.complete("confi\nx = 1", 5)).toEqual({ start: 0, matches: ["config"] });
    expect(await kernel.complete("nosuch.x")).toEqual({ start: 7, matches: [] });
  });

  it("never runs a getter, a Proxy trap or anything else the user wrote", async () => {
    await kernel.execute(
      [
        "globalThis.ran = [];",
        "const lazy = { get boom() { ran.push('getter'); return { x: 1 } } };",
        "const spy = new Proxy({}, { ownKeys() { ran.push('ownKeys'); return [] }, get() { ran.push('get') } });",
      ].join("\n"),
    );
    expect(await kernel.complete("lazy.boom.x")).toEqual({ start: 10, matches: [] });
    expect(await kernel.complete("spy.a")).toEqual({ start: 4, matches: [] });
    expect(await kernel.complete("spy['a")).toEqual({ start: 5, matches: [] });
    expect((await kernel.complete("lazy.bo")).matches).toEqual(["boom"]);
    const outcome = await kernel.execute("ran.join(',')");
    expect(outcome.outputs).toContainEqual({ type: "result", data: { "text/plain": "''" } });
  });

  it("uses Node's own type checks even when a cell replaced them before the first Tab", async () => {
    // Completion loads on the first Tab, after cells ran; the checks it uses were taken when the kernel started.
    const fresh = new JsKernel({ cwd: dir });
    try {
      await fresh.execute(
        [
          "globalThis.ran = [];",
          "const types = require('node:util').types;",
          "types.isProxy = () => { ran.push('isProxy'); return false };",
          "types.isStringObject = () => { ran.push('isStringObject'); return false };",
          "const spy = new Proxy({}, { ownKeys() { ran.push('ownKeys'); return [] } });",
          "const word = new String('ab');",
        ].join("\n"),
      );
      expect(await fresh.complete("spy.a")).toEqual({ start: 4, matches: [] });
      expect((await fresh.complete("word.len")).matches).toEqual(["length"]);
      const outcome = await fresh.execute("ran.join(',')");
      expect(outcome.outputs).toContainEqual({ type: "result", data: { "text/plain": "''" } });
    } finally {
      await fresh.shutdown();
    }
  });

  it("stays fast on a large namespace and on huge arrays, strings and typed arrays", async () => {
    await kernel.execute(
      [
        "for (let i = 0; i < 100000; i++) globalThis['name_' + i] = i;",
        "const big = new Array(1e6).fill(0);",
        "const text = 'x'.repeat(1e7);",
        "const floats = new Float64Array(1e7);",
      ].join("\n"),
    );
    const started = Date.now();
    const names = await kernel.complete("name_9999");
    expect(names.matches).toEqual(["name_9999", ...Array.from({ length: 10 }, (_, i) => `name_9999${i}`)]);
    expect((await kernel.complete("name_")).matches).toHaveLength(500); // capped, sorted
    expect((await kernel.complete("big.len")).matches).toEqual(["length"]);
    expect((await kernel.complete("text.toUpp")).matches).toEqual(["toUpperCase"]);
    expect((await kernel.complete("floats.subar")).matches).toEqual(["subarray"]);
    // Generous for a loaded machine; each answer takes a few milliseconds when idle.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("gives up with no matches while a synchronous loop holds the kernel, and answers again after", async () => {
    const running = kernel.execute("const until = Date.now() + 1500; while (Date.now() < until) {}");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    expect(await kernel.complete("confi", 5, 300)).toEqual({ start: 5, matches: [] });
    expect(Date.now() - started).toBeLessThan(1200);
    await running;
    expect((await kernel.complete("confi")).matches).toEqual(["config"]);
  });

  it("keeps a script alive while it awaits an answer from an idle kernel", () => {
    // An idle kernel is unref'd so it never holds the host open; a pending completion must, or `await` ends the script.
    const script = [
      `import { JsKernel } from ${JSON.stringify(path.join(ROOT, "src", "kernel", "js", "js-kernel.ts"))};`,
      "const kernel = new JsKernel({});",
      "await kernel.start();",
      "console.log(JSON.stringify(await kernel.complete('glob')));",
      "await kernel.shutdown();",
    ].join("\n");
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ start: 0, matches: ["global", "globalThis"] });
  });

  it("answers with no matches once the kernel is gone", async () => {
    const other = new JsKernel({ cwd: dir });
    await other.start();
    await other.shutdown();
    expect(await other.complete("conso")).toEqual({ start: 5, matches: [] });
  });
});
