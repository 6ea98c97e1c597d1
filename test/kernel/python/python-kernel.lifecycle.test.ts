// Start-up, interrupts and shutdown of a real runner: state survives interrupts, nothing survives shutdown.

import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import { PythonKernel } from "../../../src/kernel/python/python-kernel.js";
import { findProcesses, isProcessAlive, waitFor } from "../../helpers/processes.js";
import { startKernel, TEST_PYTHON } from "../../helpers/python.js";

function stdoutOf(outputs: KernelOutput[]): string {
  return outputs.map((o) => (o.type === "stream" && o.name === "stdout" ? o.text : "")).join("");
}

describe("PythonKernel lifecycle", () => {
  it("announces the interpreter it runs after the handshake", async () => {
    const kernel = await startKernel();
    expect(kernel.info?.protocol).toBe(1);
    expect(kernel.info?.pythonVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(kernel.info?.pid).toBe(kernel.pid);
    expect(kernel.isAlive).toBe(true);
  });

  it("interrupts an awaiting cell with SIGINT and keeps earlier state", async () => {
    const kernel = await startKernel();
    await kernel.execute("kept = 'earlier state'");
    const controller = new AbortController();
    const running = kernel.execute("import asyncio\nawait asyncio.sleep(10)", { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const outcome = await running;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.cancelled).toBe(true);
    expect(outcome.error?.ename).toBe("KeyboardInterrupt");
    const after = await kernel.execute("kept");
    expect(after.outputs).toEqual([{ type: "result", data: { "text/plain": "'earlier state'" } }]);
  });

  it("interrupts a busy loop", async () => {
    const kernel = await startKernel();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const outcome = await kernel.execute("while True:\n    pass", { signal: controller.signal });
    expect(outcome.cancelled).toBe(true);
    expect((await kernel.execute("1")).status).toBe("ok");
  });

  it("kills the kernel when the cell ignores the interrupt past the grace period", async () => {
    const kernel = await startKernel({ interruptGraceMs: 500 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await kernel
      .execute(
        "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\nwhile True:\n    pass",
        {
          signal: controller.signal,
        },
      )
      .catch((err: unknown) => err);
    expect(isEvalkitError(error, "KERNEL_DIED")).toBe(true);
    expect(kernel.isAlive).toBe(false);
  });

  it("cancels a cell interrupted before it started, and keeps the kernel and its state", async () => {
    const kernel = await startKernel();
    await kernel.execute("kept = 'still here'");
    for (let round = 0; round < 5; round++) {
      const started = Date.now();
      const outcome = await kernel.execute("import time\ntime.sleep(30)", { signal: AbortSignal.abort() });
      expect(outcome.cancelled).toBe(true);
      expect(Date.now() - started).toBeLessThan(3000);
    }
    expect(kernel.isAlive).toBe(true);
    expect((await kernel.execute("kept")).outputs).toEqual([
      { type: "result", data: { "text/plain": "'still here'" } },
    ]);
  });

  it("reports a KeyboardInterrupt the cell raised itself as an error, and one sent by hand as cancelled", async () => {
    const kernel = await startKernel();
    const raised = await kernel.execute("raise KeyboardInterrupt('from the code')");
    expect(raised.status).toBe("error");
    expect(raised.cancelled).toBe(false);
    expect(raised.error?.evalue).toBe("from the code");
    const running = kernel.execute("import time\nwhile True:\n    time.sleep(0.01)");
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(kernel.pid!, "SIGINT");
    const signalled = await running;
    expect(signalled.cancelled).toBe(true);
    expect(signalled.error?.ename).toBe("KeyboardInterrupt");
  });

  it("lets a child forked by a cell print into the cell but never serve a later cell", async () => {
    const kernel = await startKernel();
    const forked = await kernel.execute(
      "import os, sys\nrunner = os.getpid()\npid = os.fork()\nsys.stdout.write('in child\\n' if pid == 0 else 'in parent\\n')\nif pid:\n    os.waitpid(pid, 0)",
    );
    expect(forked.status).toBe("ok");
    expect(stdoutOf(forked.outputs).split("\n").sort()).toEqual(["", "in child", "in parent"]);
    for (let i = 0; i < 5; i++) {
      const probe = await kernel.execute("os.getpid() == runner");
      expect(probe.outputs).toEqual([{ type: "result", data: { "text/plain": "True" } }]);
    }
    const failing = await kernel.execute(
      "import time\nstarted = time.time()\npid = os.fork()\nif pid == 0:\n    for i in range(2000):\n        print('line', i)\n    raise ValueError('raised in the child')\nos.waitpid(pid, 0)\ntime.time() - started < 3",
    );
    expect(stdoutOf(failing.outputs).split("\n")).toHaveLength(2001);
    expect(
      failing.outputs.map((o) => (o.type === "stream" && o.name === "stderr" ? o.text : "")).join(""),
    ).toContain("ValueError: raised in the child");
    // A child's print() must not wait on drain threads that only exist in the parent (it once took 5 ms each:
    // 10 s for these 2,000 lines).
    expect(failing.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "True" } });
    const pool = await kernel.execute(
      "import multiprocessing as mp\ndef square(x):\n    print('worker', x)\n    return x * x\nwith mp.get_context('fork').Pool(2) as p:\n    print(p.map(square, range(4)))",
    );
    expect(stdoutOf(pool.outputs).split("\n").sort()).toEqual([
      "",
      "[0, 1, 4, 9]",
      "worker 0",
      "worker 1",
      "worker 2",
      "worker 3",
    ]);
  });

  it("ignores a stray SIGINT between cells", async () => {
    const kernel = await startKernel();
    await kernel.execute("x = 1");
    process.kill(kernel.pid!, "SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(kernel.isAlive).toBe(true);
    expect((await kernel.execute("x")).outputs).toEqual([{ type: "result", data: { "text/plain": "1" } }]);
  });

  for (const ending of ["shuts down", "is killed"] as const) {
    it(`leaves no child that left its process group when it ${ending}`, async () => {
      const marker = ending === "shuts down" ? "341" : "342";
      const kernel = await startKernel();
      const started = await kernel.execute(
        [
          "import os, subprocess, time",
          `subprocess.Popen(['sleep', '${marker}1'], start_new_session=True)`,
          `os.system("setsid sh -c 'sleep ${marker}2 &'")`,
          `!sleep ${marker}3 &`,
          "time.sleep(0.3)",
        ].join("\n"),
      );
      expect(started.status).toBe("ok");
      for (const n of [1, 2, 3]) expect(findProcesses("sleep", `${marker}${n}`)).toHaveLength(1);
      if (ending === "shuts down") await kernel.shutdown();
      else process.kill(kernel.pid!, "SIGKILL");
      expect(
        await waitFor(
          () => [1, 2, 3].every((n) => findProcesses("sleep", `${marker}${n}`).length === 0),
          5_000,
        ),
      ).toBe(true);
    });
  }

  it("shuts down without leaving the runner or a child it started", async () => {
    const kernel = await startKernel();
    const started = await kernel.execute(
      "import subprocess\nchild = subprocess.Popen(['sleep', '313'])\nchild.pid",
    );
    expect(started.status).toBe("ok");
    const pid = kernel.pid!;
    expect(await waitFor(() => findProcesses("sleep", "313").length === 1)).toBe(true);
    const exit = await kernel.shutdown();
    expect(exit?.requested).toBe(true);
    expect(await waitFor(() => !isProcessAlive(pid) && findProcesses("sleep", "313").length === 0)).toBe(
      true,
    );
  });

  it("exits by itself when its stdin closes, taking its children along", async () => {
    const kernel = await startKernel();
    await kernel.execute("import subprocess\nchild = subprocess.Popen(['sleep', '314'])");
    const pid = kernel.pid!;
    // Simulate the host vanishing: close the protocol pipe without any exit request.
    (kernel as unknown as { connection: { child: { stdin: { end(): void } } } }).connection.child.stdin.end();
    expect(await waitFor(() => !isProcessAlive(pid) && findProcesses("sleep", "314").length === 0)).toBe(
      true,
    );
  });

  it("reports a missing interpreter as PYTHON_NOT_FOUND", async () => {
    const kernel = new PythonKernel({ python: "/nonexistent/python3" });
    const error = await kernel.start().catch((err: unknown) => err);
    expect(isEvalkitError(error, "PYTHON_NOT_FOUND")).toBe(true);
  });

  it("reports an interpreter that exits at start-up with its stderr", async () => {
    const kernel = new PythonKernel({
      python: TEST_PYTHON,
      args: ["-c", "import sys; sys.stderr.write('boom at start\\n'); sys.exit(3)", "--"],
    });
    const error = await kernel.start().catch((err: unknown) => err);
    expect(isEvalkitError(error, "KERNEL_START_FAILED")).toBe(true);
  });
});
