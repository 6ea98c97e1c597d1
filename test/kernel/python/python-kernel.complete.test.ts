// Tab completion through a real kernel: the `complete` frame answers from the live namespace, idle or not.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startKernel } from "../../helpers/python.js";

describe("PythonKernel.complete", () => {
  it("completes names, attributes, dict keys and magics from the live namespace", async () => {
    const kernel = await startKernel();
    await kernel.execute("import os\nconfig = {'learning_rate': 1, 'layers': 3}\ndataframe_x = 2");
    expect(await kernel.complete("datafr")).toEqual({ start: 0, matches: ["dataframe_x"] });
    expect((await kernel.complete("x = os.pa")).matches).toEqual(expect.arrayContaining(["path", "pardir"]));
    expect(await kernel.complete("config['la")).toEqual({ start: 8, matches: ["layers']"] });
    expect((await kernel.complete("%tim")).matches).toEqual(["%time", "%timeit"]);
    // The cursor decides; a later line does not matter, and an unknown name gives nothing.
    expect(await kernel.complete("confi\nx = 1", 5)).toEqual({ start: 0, matches: ["config"] });
    expect(await kernel.complete("nosuch.x")).toEqual({ start: 7, matches: [] });
  });

  it("completes file paths inside a string, directories with a trailing slash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evalkit-py-complete-"));
    try {
      mkdirSync(join(dir, "data"));
      writeFileSync(join(dir, "data", "train.csv"), "a\n");
      writeFileSync(join(dir, "data", "test.csv"), "a\n");
      const kernel = await startKernel({ cwd: dir });
      expect(await kernel.complete("open('data/t")).toEqual({
        start: 6,
        matches: ["data/test.csv", "data/train.csv"],
      });
      expect(await kernel.complete('open("da')).toEqual({ start: 6, matches: ["data/"] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stays fast on a namespace of 100 000 names and caps the answer at 500 sorted matches", async () => {
    const kernel = await startKernel();
    await kernel.execute(
      "globals().update(('name_%d' % i, i) for i in range(100000))\nbig = list(range(10**6))",
    );
    const times: number[] = [];
    for (const line of ["name_9999", "name_", "big.app"]) {
      const started = Date.now();
      await kernel.complete(line);
      times.push(Date.now() - started);
    }
    expect((await kernel.complete("name_9999")).matches).toEqual([
      "name_9999",
      ...Array.from({ length: 10 }, (_, i) => `name_9999${i}`),
    ]);
    const capped = (await kernel.complete("name_")).matches;
    expect(capped).toHaveLength(500);
    expect(capped).toEqual([...capped].sort());
    expect((await kernel.complete("big.app")).matches).toEqual(["append"]);
    console.log(`completion on 100 000 names: ${times.join(", ")} ms`);
    // Generous for a loaded machine: each answer takes tens of milliseconds when idle.
    for (const time of times) expect(time).toBeLessThan(1500);
  });

  it("answers with no matches once the kernel is gone", async () => {
    const kernel = await startKernel();
    await kernel.shutdown();
    expect(await kernel.complete("pri")).toEqual({ start: 3, matches: [] });
  });
});
