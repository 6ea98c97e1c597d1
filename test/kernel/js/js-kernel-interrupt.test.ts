import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";
import type { KernelExit } from "../../../src/kernel/kernel.js";

function abortAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms);
  return controller.signal;
}

describe("JsKernel interrupts", () => {
  it("cancels a cell interrupted in the same turn as its execute(), on a starting and on a warm kernel", async () => {
    const kernel = new JsKernel();
    try {
      const started = Date.now();
      // The kernel starts for this cell: the interrupt reaches it on its way, before it runs.
      const first = kernel.execute("globalThis.ran = true; await new Promise((r) => setTimeout(r, 20000))");
      kernel.interrupt();
      expect(await first).toMatchObject({ status: "error", cancelled: true });
      expect((await kernel.execute("typeof globalThis.ran")).outputs[0]).toMatchObject({
        data: { "text/plain": "'undefined'" },
      });
      const second = kernel.execute("await new Promise((r) => setTimeout(r, 20000))");
      kernel.interrupt();
      expect(await second).toMatchObject({ status: "error", cancelled: true });
      expect(Date.now() - started).toBeLessThan(10000);
      expect((await kernel.execute("1 + 1")).outputs[0]).toMatchObject({ data: { "text/plain": "2" } });
    } finally {
      await kernel.shutdown();
    }
  });

  it("cancels a cell waiting on a timer without losing state", async () => {
    const kernel = new JsKernel();
    try {
      await kernel.execute("const kept = 'state'");
      const started = Date.now();
      const outcome = await kernel.execute("await new Promise((r) => setTimeout(r, 20000))", {
        signal: abortAfter(100),
      });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(outcome).toMatchObject({ status: "error", cancelled: true, error: { ename: "InterruptError" } });
      const after = await kernel.execute("kept");
      expect(after.outputs[0]).toMatchObject({ data: { "text/plain": "'state'" } });
    } finally {
      await kernel.shutdown();
    }
  });

  it("clears the timers an interrupted cell started", async () => {
    const kernel = new JsKernel();
    try {
      await kernel.execute("setInterval(() => console.log('tick'), 10); await new Promise(() => {})", {
        signal: abortAfter(50),
      });
      await new Promise((r) => setTimeout(r, 100));
      const outcome = await kernel.execute("'quiet'");
      expect(outcome.outputs.filter((o) => o.type === "stream")).toEqual([]);
    } finally {
      await kernel.shutdown();
    }
  });

  it("interrupts a synchronous loop at the top of a cell and keeps the state", async () => {
    const kernel = new JsKernel({ interruptGraceMs: 5000 });
    try {
      await kernel.execute("const kept = 'state'");
      const outcome = await kernel.execute("let spins = 0; while (true) { spins++ }", {
        signal: abortAfter(300),
      });
      expect(outcome).toMatchObject({ status: "error", cancelled: true, error: { ename: "InterruptError" } });
      expect((await kernel.execute("[kept, spins > 0]")).outputs[0]).toMatchObject({
        data: { "application/json": ["state", true] },
      });
    } finally {
      await kernel.shutdown();
    }
  });

  it("kills a synchronous busy loop after an await within a bounded time and runs the next cell in a fresh process", async () => {
    const kernel = new JsKernel({ interruptGraceMs: 300 });
    const exits: KernelExit[] = [];
    kernel.onExit((exit) => exits.push(exit));
    try {
      await kernel.execute("const before = 1");
      const seen: KernelOutput[] = [];
      const started = Date.now();
      const failure = await kernel
        .execute("await null; console.log('entering loop'); while (true) {}", {
          signal: abortAfter(100),
          onOutput: (o) => seen.push(o),
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
      expect(isEvalkitError(failure) && failure.details).toMatchObject({ killed: true, stateLost: true });
      expect(seen).toEqual([{ type: "stream", name: "stdout", text: "entering loop\n" }]);
      expect(kernel.isAlive).toBe(false);
      expect(exits).toHaveLength(1);
      expect(exits[0]?.requested).toBe(true);
      const next = await kernel.execute("typeof before");
      expect(next.outputs[0]).toMatchObject({ data: { "text/plain": "'undefined'" } });
      expect(kernel.isAlive).toBe(true);
    } finally {
      await kernel.shutdown();
    }
  });

  it("interrupt() without a signal also stops a busy loop after an await", async () => {
    const kernel = new JsKernel({ interruptGraceMs: 200 });
    await kernel.start();
    try {
      const pending = kernel.execute("await null; for (;;) {}");
      setTimeout(() => kernel.interrupt(), 100);
      await expect(pending).rejects.toMatchObject({ code: "KERNEL_DIED" });
    } finally {
      await kernel.shutdown();
    }
  });

  it("returns a cancelled outcome without running the code when the signal is already aborted", async () => {
    const kernel = new JsKernel();
    try {
      const outcome = await kernel.execute("globalThis.ran = true", { signal: AbortSignal.abort() });
      expect(outcome).toMatchObject({ status: "error", cancelled: true, executionCount: null });
      expect((await kernel.execute("typeof ran")).outputs[0]).toMatchObject({
        data: { "text/plain": "'undefined'" },
      });
    } finally {
      await kernel.shutdown();
    }
  });
});

describe("JsKernel lifecycle", () => {
  it("reports a kernel that exits during a cell as KERNEL_DIED without taking the host down", async () => {
    const kernel = new JsKernel();
    try {
      await expect(kernel.execute("process.exit(3)")).rejects.toMatchObject({
        code: "KERNEL_DIED",
        details: { killed: false, stateLost: true, exitCode: 3 },
      });
      expect((await kernel.execute("1 + 1")).status).toBe("ok");
    } finally {
      await kernel.shutdown();
    }
  });

  it("shutdown() ends the kernel process, notifies listeners, and later executes fail with KERNEL_CLOSED", async () => {
    const kernel = new JsKernel();
    await kernel.start();
    const exits: KernelExit[] = [];
    kernel.onExit((exit) => exits.push(exit));
    const exit = await kernel.shutdown();
    expect(exit).toMatchObject({ requested: true, signal: null });
    expect(exits).toHaveLength(1);
    expect(kernel.isAlive).toBe(false);
    await expect(kernel.execute("1")).rejects.toMatchObject({ code: "KERNEL_CLOSED" });
  });

  it("restart() gives a fresh context", async () => {
    const kernel = new JsKernel();
    try {
      await kernel.execute("const old = 1");
      await kernel.restart();
      expect((await kernel.execute("typeof old")).outputs[0]).toMatchObject({
        data: { "text/plain": "'undefined'" },
      });
    } finally {
      await kernel.shutdown();
    }
  });

  it("keeps host memory bounded while a cell prints a lot", async () => {
    const kernel = new JsKernel();
    try {
      let total = 0;
      const outcome = await kernel.execute(
        "const block = 'y'.repeat(1 << 20) + '\\n'; for (let i = 0; i < 128; i++) process.stdout.write(block)",
        {
          onOutput: (o) => {
            if (o.type === "stream") total += o.text.length;
          },
        },
      );
      expect(total).toBe(128 * ((1 << 20) + 1));
      expect(outcome.outputsTruncated).toBe(true);
      const kept = outcome.outputs.reduce((n, o) => n + (o.type === "stream" ? o.text.length : 0), 0);
      expect(kept).toBeLessThanOrEqual(1024 * 1024);
    } finally {
      await kernel.shutdown();
    }
  });

  it("rejects invalid options naming the field", () => {
    expect(() => new JsKernel({ interruptGraceMs: -1 })).toThrow(/interruptGraceMs/);
  });
});
