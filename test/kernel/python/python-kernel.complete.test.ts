// Tab completion through a real kernel: the `complete` frame answers from the live namespace, idle or not.
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

  it("answers with no matches once the kernel is gone", async () => {
    const kernel = await startKernel();
    await kernel.shutdown();
    expect(await kernel.complete("pri")).toEqual({ start: 3, matches: [] });
  });
});
