// Capture integrity under hostile cells: fd-level and Python-level output keep their order, and capture
// survives a cell that points the capture pipes elsewhere.
import { describe, expect, it } from "vitest";
import { startKernel } from "../helpers/python.js";
import { createManager, kernelPid, sabotage, textOf } from "./chaos-helpers.js";

describe("chaos: capture integrity", () => {
  // The documented guarantee (docs/protocol.md, ordering): fd-level bytes written a millisecond or more
  // before a Python-level write come out before it; same-microsecond interleavings may arrive by chunks.
  it("keeps os.write(1), child-process and print() output in the order it was written", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      [
        "import os, subprocess, time",
        "for i in range(100):",
        "    os.write(1, b'w%d\\n' % i)",
        "    time.sleep(0.002)",
        "    print('p%d' % i)",
        "    if i % 25 == 0:",
        "        subprocess.run(['echo', 'child%d' % i])",
        "        print('after%d' % i)",
      ].join("\n"),
    );
    const text = outcome.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
    const expected = Array.from(
      { length: 100 },
      (_, i) => `w${i}\np${i}\n${i % 25 === 0 ? `child${i}\nafter${i}\n` : ""}`,
    ).join("");
    expect(text).toBe(expected);
  });

  it("keeps capturing output after a cell dup2s /dev/null over the capture pipes", async () => {
    const manager = createManager();
    await kernelPid(manager);
    const outcome = await manager.run({
      code: sabotage(["pipe:"], "print('sabotaged', hit)"),
      timeoutSec: 10,
    });
    expect(["ok", "error", "died"]).toContain(outcome.status);
    const next = await manager.run({
      code: "import os, sys\nprint('one')\nsys.stdout.flush()\nos.write(1, b'two\\n')\nos.system('echo three')\n7",
      timeoutSec: 10,
    });
    expect(next.status).toBe("ok");
    const stream = (name: string) =>
      next.outputs.map((o) => (o.type === "stream" && o.name === name ? o.text : "")).join("");
    expect(stream("stdout")).toBe("one\ntwo\nthree\n");
    // Capture was rebuilt, and the user is told why some output of the sabotaging cell may be missing.
    expect(stream("stderr")).toContain("capture was rebuilt");
    expect(textOf(next).endsWith("7")).toBe(true);
  });
});
