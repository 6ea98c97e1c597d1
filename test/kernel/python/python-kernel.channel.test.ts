// Channel hygiene: whatever a cell writes, and however, the protocol stream stays intact and output is captured.

import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import type { PythonKernel } from "../../../src/kernel/python/python-kernel.js";
import { startKernel } from "../../helpers/python.js";

function text(outputs: KernelOutput[], name: "stdout" | "stderr" = "stdout"): string {
  return outputs.map((o) => (o.type === "stream" && o.name === name ? o.text : "")).join("");
}

async function expectHealthy(kernel: PythonKernel) {
  const outcome = await kernel.execute("'alive'");
  expect(outcome.status).toBe("ok");
  expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "'alive'" } }]);
}

describe("PythonKernel channel hygiene", () => {
  it("captures os.write to fd 1 and fd 2 as the cell's streams, every time", async () => {
    const kernel = await startKernel();
    // Repeated: a race between the drain threads and the end-of-cell sync once lost bytes a few times in a hundred.
    for (let round = 0; round < 100; round++) {
      const outcome = await kernel.execute(
        "import os\nos.write(1, b'to fd1\\n')\nos.write(2, b'to fd2\\n')\n'done'",
      );
      expect(text(outcome.outputs)).toBe("to fd1\n");
      expect(text(outcome.outputs, "stderr")).toBe("to fd2\n");
      expect(outcome.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "'done'" } });
    }
    await expectHealthy(kernel);
  });

  it("captures a child process's output and gives it an empty stdin", async () => {
    const kernel = await startKernel();
    const started = Date.now();
    const outcome = await kernel.execute(
      "import subprocess\nsubprocess.run(['echo', 'from child'])\nsubprocess.run(['cat']).returncode",
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text(outcome.outputs)).toBe("from child\n");
    expect(outcome.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "0" } });
    await expectHealthy(kernel);
  });

  it("attributes output of a thread the cell started to that cell", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import threading\nt = threading.Thread(target=lambda: print('from thread'))\nt.start(); t.join()",
    );
    expect(text(outcome.outputs)).toBe("from thread\n");
    await expectHealthy(kernel);
  });

  it("keeps undecodable bytes as surrogate escapes instead of dropping them or breaking the frame", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import sys\nsys.stdout.buffer.write(b'\\xff\\n')\nsys.stdout.flush()",
    );
    expect(text(outcome.outputs)).toBe("\udcff\n");
    await expectHealthy(kernel);
  });

  it("maps lone surrogates and control characters into valid frames", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("print('\\ud800 and \\x00 and \\x1b[31mred')");
    expect(outcome.status).toBe("ok");
    expect(text(outcome.outputs)).toBe("\ud800 and \u0000 and \u001b[31mred\n");
    await expectHealthy(kernel);
  });

  it("chunks a large write into frames no bigger than about 32 KB", async () => {
    const kernel = await startKernel();
    const sizes: number[] = [];
    const outcome = await kernel.execute("print('x' * 1_000_000)", {
      onOutput: (o) => {
        if (o.type === "stream") sizes.push(o.text.length);
      },
    });
    expect(outcome.status).toBe("ok");
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1_000_001);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(32 * 1024);
    await expectHealthy(kernel);
  });

  it("survives a cell that closes fd 1 and fd 2", async () => {
    const kernel = await startKernel();
    await kernel.execute("import os\nos.close(1)\nos.close(2)");
    const outcome = await kernel.execute("import os\nos.write(1, b'back\\n')\nprint('and print')");
    expect(text(outcome.outputs)).toBe("back\nand print\n");
  });

  it("restores sys.stdout that an earlier cell set to None, saying so, and leaves a working redirect alone", async () => {
    const kernel = await startKernel();
    await kernel.execute("import sys, io\nsys.stdout = None");
    const after = await kernel.execute("print('probe')");
    expect(text(after.outputs)).toBe("probe\n");
    expect(text(after.outputs, "stderr")).toContain("sys.stdout was None or closed");
    await kernel.execute("buffer = io.StringIO()\nsys.stdout = buffer");
    const redirected = await kernel.execute("print('kept')\nsys.stdout = sys.__stdout__\nbuffer.getvalue()");
    expect(redirected.outputs).toEqual([{ type: "result", data: { "text/plain": "'kept\\n'" } }]);
  });

  it("fails input() at once with a clear error and keeps the kernel usable", async () => {
    const kernel = await startKernel();
    const started = Date.now();
    const outcome = await kernel.execute("input('name? ')");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(outcome.error?.ename).toBe("StdinNotImplementedError");
    expect(outcome.error?.evalue).toMatch(/pass data/i);
    await expectHealthy(kernel);
  });

  it("answers getpass() like input(), also when getpass is first imported in the same cell", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("import getpass\nsecret = getpass.getpass('pw: ')\nlen(secret)", {
      onInputRequest: async () => "hunter2",
    });
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "7" } }]);
  });

  it("shows the cell's own lines in a traceback printed by a cell that just imported traceback", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import traceback\ndef boom():\n    return 1 / 0\ntry:\n    boom()\nexcept ZeroDivisionError:\n    traceback.print_exc()",
    );
    expect(outcome.status).toBe("ok");
    expect(text(outcome.outputs, "stderr")).toContain("    return 1 / 0\n");
  });

  it("answers input() through onInputRequest when the host allows it", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("name = input('name? ')\nname.upper()", {
      onInputRequest: async (prompt) => `ada (${prompt.trim()})`,
    });
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "'ADA (NAME?)'" } }]);
  });
});
