// The one kernel client's decisions, the same for Python and JS: the escalation after an ignored interrupt (the
// cell's grace winning over the kernel's), output retained once, and the cell running at shutdown.
import { afterEach, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";
import type { Kernel } from "../../../src/kernel/kernel.js";
import { PythonKernel } from "../../../src/kernel/python/python-kernel.js";
import { TEST_PYTHON } from "../../helpers/interpreters.js";

const kernels: Kernel[] = [];

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.shutdown()));
});

/** A started kernel of each runtime, with a kernel grace far longer than any test waits. */
const runtimes = [
  {
    name: "python",
    start: async () => {
      const kernel = new PythonKernel({ python: TEST_PYTHON, interruptGraceMs: 60_000 });
      kernels.push(kernel);
      await kernel.start();
      return kernel;
    },
    ignoresInterrupts: "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
    printsTwice: "print('one')\n2",
    busy: "import time\ntime.sleep(30)",
  },
  {
    name: "javascript",
    start: async () => {
      const kernel = new JsKernel({ interruptGraceMs: 60_000 });
      kernels.push(kernel);
      await kernel.start();
      return kernel;
    },
    ignoresInterrupts: "await null; for (;;) {}",
    printsTwice: "console.log('one'); 2",
    busy: "await new Promise((r) => setTimeout(r, 30000))",
  },
] as const;

describe.each(runtimes)("the kernel client for $name", (runtime) => {
  it("kills a cell that ignores its interrupt after the cell's own grace, not the kernel's", async () => {
    const kernel = await runtime.start();
    const started = Date.now();
    const failure = await kernel
      .execute(runtime.ignoresInterrupts, { signal: AbortSignal.timeout(200), interruptGraceMs: 300 })
      .catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
    expect(isEvalkitError(failure) && failure.message).toContain(
      "did not stop within 300 ms of the interrupt",
    );
    expect(isEvalkitError(failure) && failure.details).toMatchObject({ killed: true, stateLost: true });
  });

  it("leaves the outputs out of the outcome when the caller retains them, and hands each to onOutput", async () => {
    const kernel = await runtime.start();
    const seen: KernelOutput[] = [];
    const outcome = await kernel.execute(runtime.printsTwice, {
      retainOutputs: false,
      onOutput: (output) => seen.push(output),
    });
    expect(outcome).toMatchObject({ status: "ok", outputs: [] });
    expect(seen).toMatchObject([
      { type: "stream", name: "stdout", text: "one\n" },
      { type: "result", data: { "text/plain": "2" } },
    ]);
  });

  it("fails the cell running at shutdown as one that reached the kernel (KERNEL_DIED, started)", async () => {
    const kernel = await runtime.start();
    const running = kernel.execute(runtime.busy).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await kernel.shutdown();
    expect(await running).toMatchObject({ code: "KERNEL_DIED", details: { started: true } });
    await expect(kernel.execute("1")).rejects.toMatchObject({ code: "KERNEL_CLOSED" });
  });
});
