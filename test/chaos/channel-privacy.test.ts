// The protocol channel stays private: low-descriptor sabotage, forged frames and descriptor flags a cell leaves behind.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import { JsKernel } from "../../src/kernel/js/js-kernel.js";
import type { ExecuteOutcome, Kernel } from "../../src/kernel/kernel.js";
import { startKernel } from "../helpers/python.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";

function streamText(outputs: KernelOutput[], name: "stdout" | "stderr"): string {
  return outputs.map((o) => (o.type === "stream" && o.name === name ? o.text : "")).join("");
}

/** A cell forged a `result` and a `done` (count 99) for itself: both ignored and named, the real ones kept. */
async function expectForgeryIgnored(kernel: Kernel, outcome: ExecuteOutcome, next: string): Promise<void> {
  expect(outcome.status).toBe("ok");
  expect(outcome.executionCount).not.toBe(99);
  expect(streamText(outcome.outputs, "stdout")).toBe("the real cell went on\n");
  const stderr = streamText(outcome.outputs, "stderr");
  expect(stderr).toContain('ignored a "result" frame');
  expect(stderr).toContain('ignored a "done" frame');
  const results = outcome.outputs.filter((o) => o.type === "result");
  expect(results).toEqual([{ type: "result", data: { "text/plain": "'real'" } }]);
  const after = await kernel.execute(next);
  expect(after.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "2" } });
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("chaos: the protocol channel stays private", () => {
  it("keeps frames out of a file a cell opens after closing descriptors 3 to 19", async () => {
    const dir = await mkdtemp(join(tmpdir(), "evalkit-closerange-"));
    dirs.push(dir);
    const path = join(dir, "user.txt");
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      [
        "import os",
        "os.closerange(3, 20)",
        `f = open(${JSON.stringify(path)}, "w")`,
        "f.write('mine\\n')",
        "print('printed after closerange')",
        "fd = f.fileno()",
        "f.close()",
        "fd",
      ].join("\n"),
    );
    expect(outcome.status).toBe("ok");
    // The file got a low descriptor, and only what the cell wrote: no frame, no captured output.
    const last = outcome.outputs.at(-1);
    expect(last?.type === "result" ? Number(last.data["text/plain"]) : Number.NaN).toBeLessThan(20);
    expect(streamText(outcome.outputs, "stdout")).toBe("printed after closerange\n");
    expect(readFileSync(path, "utf8")).toBe("mine\n");
    const next = await kernel.execute("import os\nos.write(1, b'fd1\\n')\nprint('py')\n6 * 7");
    expect(next.status).toBe("ok");
    expect(streamText(next.outputs, "stdout")).toBe("fd1\npy\n");
    expect(next.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "42" } });
  });

  it("never trusts a done or result frame a cell forges on the protocol descriptor, and says so", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      [
        "import os, sys, json, time",
        "st = sys.modules['evalkit_kernel.core.state']",
        "cell = st.current_cell_id()",
        "fake = [{'type': 'result', 'id': cell, 'bundle': {'text/plain': \"'forged'\"}},",
        "        {'type': 'done', 'id': cell, 'status': 'ok', 'executionCount': 99, 'cancelled': False}]",
        "os.write(st.writer._fd, ''.join(json.dumps(f) + '\\n' for f in fake).encode())",
        "time.sleep(0.3)",
        "print('the real cell went on')",
        "'real'",
      ].join("\n"),
    );
    await expectForgeryIgnored(kernel, outcome, "1 + 1");
  });

  it("never trusts a done or result frame a JS cell forges on fd 3, and says so", () =>
    forgeOnFd3(undefined));

  it.skipIf(sandboxSkipReason !== "")(
    `never trusts a done or result frame a sandboxed JS cell forges on fd 3, and says so ${sandboxSkipReason}`,
    () => forgeOnFd3({ network: false, writable: [] }),
  );

  it("resets fd 1 and fd 2 to blocking as each cell ends, so a later child's big output is not cut short", async () => {
    const kernel = await startKernel();
    // Like `node`, a child switches its inherited stdout/stderr (the capture pipes) to non-blocking and exits.
    const leave = await kernel.execute(
      "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import os; os.set_blocking(1, False); os.set_blocking(2, False)']).returncode",
    );
    expect(leave.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "0" } });
    let received = 0;
    const big = await kernel.execute(
      [
        "import subprocess, sys",
        "code = 'import sys; sys.stdout.write(\"x\" * (8 << 20)); sys.stdout.flush()'",
        "subprocess.run([sys.executable, '-c', code]).returncode",
      ].join("\n"),
      {
        onOutput: (o) => {
          if (o.type === "stream" && o.name === "stdout") received += o.text.length;
        },
      },
    );
    expect(streamText(big.outputs, "stderr")).toBe("");
    expect(big.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "0" } });
    expect(received).toBe(8 << 20);
  }, 60_000);
});

/** A JS cell writes a forged `result` and `done` for itself on fd 3, the frame channel (docs/protocol.md). */
async function forgeOnFd3(sandbox: { network: boolean; writable: string[] } | undefined): Promise<void> {
  const kernel = new JsKernel(sandbox ? { sandbox } : {});
  try {
    const outcome = await kernel.execute(
      [
        'const fs = require("node:fs");',
        'const path = require("node:path");',
        // The runner's own module gives the cell its id.
        'const { state } = require(path.join(path.dirname(process.argv[1]), "cell-state.cjs"));',
        "const cell = state.current.id;",
        "const fake = [",
        '  { type: "result", id: cell, bundle: { "text/plain": "\'forged\'" } },',
        '  { type: "done", id: cell, status: "ok", executionCount: 99, cancelled: false },',
        "];",
        'fs.writeSync(3, fake.map((f) => JSON.stringify(f) + "\\n").join(""));',
        "await new Promise((r) => setTimeout(r, 300));",
        'console.log("the real cell went on");',
        '"real"',
      ].join("\n"),
    );
    await expectForgeryIgnored(kernel, outcome, "1 + 1");
  } finally {
    await kernel.shutdown();
  }
}
