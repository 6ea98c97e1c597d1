// Unit tests of SessionManager against a fake kernel: keys, queueing, per-call mode, eviction, crashes, reset.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { SessionManager } from "../../src/session/session-manager.js";
import {
  createFakeFactory,
  createFakeManagers,
  type FakeKernel,
  fakeResolver,
  sleep,
  stdoutOf,
} from "./fake-kernel.js";

const root = mkdtempSync(path.join(tmpdir(), "evalkit-session-unit-"));
const dirA = path.join(root, "a");
const dirB = path.join(root, "b");
mkdirSync(dirA);
mkdirSync(dirB);
symlinkSync(dirA, path.join(root, "a-link"));

const { createManager, disposeAll, track } = createFakeManagers();

afterEach(disposeAll);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("session mode", () => {
  it("keeps a kernel's state across calls with the same session id and cwd", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ sessionId: "s1", cwd: dirA, code: "set x 42" });
    const outcome = await manager.run({ sessionId: "s1", cwd: dirA, code: "get x" });
    expect(outcome.status).toBe("ok");
    expect(stdoutOf(outcome)).toBe("42");
    expect(outcome.notices).toEqual([]);
    expect(kernels).toHaveLength(1);
  });

  it("isolates session ids and working directories, but treats a symlinked cwd as the same directory", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ sessionId: "s1", cwd: dirA, code: "set x 1" });
    expect(stdoutOf(await manager.run({ sessionId: "s2", cwd: dirA, code: "get x" }))).toBe("<unset>");
    expect(stdoutOf(await manager.run({ sessionId: "s1", cwd: dirB, code: "get x" }))).toBe("<unset>");
    expect(
      stdoutOf(await manager.run({ sessionId: "s1", cwd: path.join(root, "a-link"), code: "get x" })),
    ).toBe("1");
    expect(kernels).toHaveLength(3);
  });

  it("rejects a working directory that does not exist with CWD_INVALID", async () => {
    const { manager } = createManager();
    await expect(manager.run({ cwd: path.join(root, "missing"), code: "pid" })).rejects.toMatchObject({
      code: "CWD_INVALID",
    });
  });

  it("validates input and names the offending field", async () => {
    const { manager } = createManager();
    await expect(manager.run({ cwd: dirA, code: 5 as unknown as string })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "code" },
    });
    expect(() => new SessionManager({ maxKernels: 0 })).toThrow(/maxKernels/);
  });

  it("never interleaves two calls on one session, while different sessions run in parallel", async () => {
    const { manager } = createManager();
    const order: string[] = [];
    const callA = manager.openCall({ sessionId: "q", cwd: dirA });
    const callB = manager.openCall({ sessionId: "q", cwd: dirA });
    const a1 = callA.run({ code: "sleep 80" }).then(() => order.push("a1"));
    const b1 = callB.run({ code: "pid" }).then(() => order.push("b1"));
    await a1;
    await sleep(20);
    await callA.run({ code: "sleep 10" }).then(() => order.push("a2"));
    await callA.close();
    await b1;
    await callB.close();
    expect(order).toEqual(["a1", "a2", "b1"]);

    const started = performance.now();
    await Promise.all([
      manager.run({ sessionId: "p1", cwd: dirA, code: "sleep 300" }),
      manager.run({ sessionId: "p2", cwd: dirA, code: "sleep 300" }),
    ]);
    expect(performance.now() - started).toBeLessThan(550);
  });

  it("cancels a call that is still waiting in the queue when its signal aborts", async () => {
    const { manager, kernels } = createManager();
    const busy = manager.run({ sessionId: "q", cwd: dirA, code: "sleep 300" });
    const controller = new AbortController();
    const waiting = manager.run({
      sessionId: "q",
      cwd: dirA,
      code: "set ran yes",
      signal: controller.signal,
    });
    await sleep(20);
    controller.abort();
    const outcome = await waiting;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.notices.join(" ")).toMatch(/waiting for another call/);
    await busy;
    expect(kernels[0]?.state.has("ran")).toBe(false);
  });
});

describe("per-call mode", () => {
  it("gives every call a fresh kernel, shared by the cells of that call, and shuts it down after", async () => {
    const { manager, kernels } = createManager({ mode: "per-call" });
    const call = manager.openCall({ cwd: dirA });
    await call.run({ code: "set x 1" });
    expect(stdoutOf(await call.run({ code: "get x" }))).toBe("1");
    await call.close();
    expect(kernels[0]?.isAlive).toBe(false);
    expect(stdoutOf(await manager.run({ cwd: dirA, code: "get x" }))).toBe("<unset>");
    expect(kernels).toHaveLength(2);
    expect(kernels.every((k) => !k.isAlive)).toBe(true);
    expect(manager.kernelCount).toBe(0);
  });
});

describe("eviction", () => {
  it("shuts idle kernels down after the idle timeout and tells the next call that state was lost", async () => {
    const { manager, kernels } = createManager({ idleEvictMs: 60 });
    await manager.run({ sessionId: "idle", cwd: dirA, code: "set x 1" });
    await sleep(150);
    expect(kernels[0]?.isAlive).toBe(false);
    expect(manager.kernelCount).toBe(0);
    const outcome = await manager.run({ sessionId: "idle", cwd: dirA, code: "get x" });
    expect(stdoutOf(outcome)).toBe("<unset>");
    expect(outcome.notices).toEqual([
      "kernel restarted: previous kernel was shut down after 60ms idle; state was lost",
    ]);
  });

  it("keeps kernels and cells alive under timeouts longer than a timer can wait, instead of firing at once", async () => {
    // Real timers: Node fires a timer asked for more than 2^31-1 ms after 1 ms.
    const { manager, kernels } = createManager({
      idleEvictMs: 1e10,
      maxTimeoutSec: 1e7,
      defaultTimeoutSec: 1e7,
    });
    const outcome = await manager.run({ sessionId: "long", cwd: dirA, code: "sleep 200" });
    expect(outcome.status).toBe("ok");
    await sleep(100);
    expect(kernels[0]?.isAlive).toBe(true);
  });

  it("counts the idle time from the last call: calls in a row, and a cell longer than the timeout, keep the kernel", async () => {
    // Bounds with room for a loaded machine (test files run four at a time): gaps of 100 ms under a 600 ms timeout.
    const { manager, kernels } = createManager({ idleEvictMs: 600 });
    await manager.run({ sessionId: "warm", cwd: dirA, code: "set x 1" });
    for (let i = 0; i < 8; i++) {
      await sleep(100);
      await manager.run({ sessionId: "warm", cwd: dirA, code: "get x" });
    }
    // A cell that runs past the idle timeout is not idle time either.
    await manager.run({ sessionId: "warm", cwd: dirA, code: "sleep 900" });
    const outcome = await manager.run({ sessionId: "warm", cwd: dirA, code: "get x" });
    expect(stdoutOf(outcome)).toBe("1");
    expect(kernels).toHaveLength(1);
    await sleep(1200);
    expect(kernels[0]?.isAlive).toBe(false);
  });

  it("evicts the least recently used idle kernel beyond the limit, never one that is running", async () => {
    const { manager, kernels } = createManager({ maxKernels: 2 });
    const running = manager.run({ sessionId: "busy", cwd: dirA, code: "sleep 300" });
    await sleep(10);
    await manager.run({ sessionId: "old", cwd: dirA, code: "pid" });
    await sleep(5);
    await manager.run({ sessionId: "new", cwd: dirA, code: "pid" });
    // "busy" is the oldest but runs, so "old" made room for "new".
    const [busy, old, fresh] = kernels as [FakeKernel, FakeKernel, FakeKernel];
    expect(busy.isAlive).toBe(true);
    expect(old.isAlive).toBe(false);
    expect(fresh.isAlive).toBe(true);
    expect(manager.kernelCount).toBe(2);
    await running;
    const again = await manager.run({ sessionId: "old", cwd: dirA, code: "pid" });
    expect(again.notices[0]).toMatch(/evicted to stay within 2 kernels; state was lost/);
    expect(manager.kernelCount).toBe(2);
  });
});

describe("crashes", () => {
  it("replaces a kernel that died while idle and says state was lost", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ sessionId: "d", cwd: dirA, code: "set x 1" });
    kernels[0]?.exit({ exitCode: null, signal: "SIGKILL", requested: false, stderrTail: "" });
    const outcome = await manager.run({ sessionId: "d", cwd: dirA, code: "get x" });
    expect(outcome.status).toBe("ok");
    expect(stdoutOf(outcome)).toBe("<unset>");
    expect(outcome.notices).toEqual([
      "kernel restarted: previous kernel exited (signal SIGKILL: out of memory, or killed by another process); state was lost",
    ]);
  });

  it("notices a silent death through the heartbeat", async () => {
    const { manager, kernels } = createManager({ heartbeatMs: 20 });
    await manager.run({ sessionId: "h", cwd: dirA, code: "pid" });
    const kernel = kernels[0] as FakeKernel;
    // The process is gone but no exit event arrived.
    Object.defineProperty(kernel, "isAlive", { get: () => false });
    await sleep(80);
    expect(manager.kernelCount).toBe(0);
    const outcome = await manager.run({ sessionId: "h", cwd: dirA, code: "pid" });
    expect(outcome.notices[0]).toMatch(/found dead by the heartbeat/);
  });

  it("reports a death during a cell as died with its cause and does not re-run the cell", async () => {
    const { manager, kernels } = createManager();
    const outcome = await manager.run({ sessionId: "m", cwd: dirA, code: "die 3" });
    expect(outcome.status).toBe("died");
    expect(outcome.exit?.exitCode).toBe(3);
    expect(outcome.notices[0]).toBe(
      "kernel died during the cell (exit code 3); state was lost and the cell was not re-run",
    );
    expect(outcome.error?.ename).toBe("KernelDied");
    expect(kernels).toHaveLength(1);
    const next = await manager.run({ sessionId: "m", cwd: dirA, code: "pid" });
    expect(next.status).toBe("ok");
    expect(next.notices[0]).toBe("kernel restarted: previous kernel exited (exit code 3); state was lost");
  });

  it("keeps at most 1 MiB of a dead cell's output in its outcome, while onOutput still sees everything", async () => {
    const { manager } = createManager();
    let streamed = 0;
    const outcome = await manager.run({
      cwd: dirA,
      code: "spam-then-die 64",
      onOutput: (output) => {
        if (output.type === "stream") streamed += output.text.length;
      },
    });
    expect(outcome.status).toBe("died");
    expect(streamed).toBe(64 * 64 * 1024);
    expect(stdoutOf(outcome).length).toBe(1024 * 1024);
  });

  it("classifies a signal death and keeps the kernel's stderr tail", async () => {
    const { manager } = createManager();
    const outcome = await manager.run({ cwd: dirA, code: "die-signal SIGSEGV" });
    expect(outcome.status).toBe("died");
    expect(outcome.notices.join("\n")).toContain("signal SIGSEGV");
    expect(outcome.notices.join("\n")).toContain("Fatal Python error: oops");
  });

  it("runs a cell again on a fresh kernel when the kernel was gone before the cell started", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ sessionId: "g", cwd: dirA, code: "pid" });
    // Dead but not yet noticed: no exit event and isAlive still claims true until execute.
    const kernel = kernels[0] as FakeKernel;
    kernel.isStarted = false;
    Object.defineProperty(kernel, "isAlive", { get: () => true, configurable: true });
    kernel.execute = async () => {
      const { EvalkitError } = await import("../../src/errors.js");
      throw new EvalkitError("KERNEL_CLOSED", "kernel is not running");
    };
    const outcome = await manager.run({ sessionId: "g", cwd: dirA, code: "set y 2" });
    expect(outcome.status).toBe("ok");
    expect(kernels).toHaveLength(2);
    expect(kernels[1]?.state.get("y")).toBe("2");
    expect(outcome.notices.join(" ")).toMatch(/gone before the cell started/);
  });

  it("retries one failed start, then fails hard with KERNEL_CRASH_LOOP instead of looping", async () => {
    const once = createFakeFactory({ failStarts: 1 });
    const manager = new SessionManager({ createKernel: once.factory, resolveInterpreter: fakeResolver });
    track(manager);
    expect((await manager.run({ cwd: dirA, code: "pid" })).status).toBe("ok");
    expect(once.kernels).toHaveLength(2);

    const always = createFakeFactory({ alwaysFailStart: true });
    const looping = new SessionManager({ createKernel: always.factory, resolveInterpreter: fakeResolver });
    track(looping);
    const err = await looping.run({ cwd: dirA, code: "pid" }).catch((e: unknown) => e);
    expect(isEvalkitError(err, "KERNEL_CRASH_LOOP")).toBe(true);
    expect(always.kernels).toHaveLength(2);
    expect(always.kernels.every((k) => !k.isAlive)).toBe(true);
  });
});

describe("reset", () => {
  it("replaces the key's kernel for every owner and says so", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ sessionId: "r", cwd: dirA, code: "set x 1" });
    const outcome = await manager.run({ sessionId: "r", cwd: dirA, code: "get x", reset: true });
    expect(stdoutOf(outcome)).toBe("<unset>");
    expect(outcome.notices[0]).toMatch(/^kernel reset: a fresh kernel was started/);
    expect(kernels[0]?.isAlive).toBe(false);
    expect(kernels).toHaveLength(2);
  });
});

describe("dispose", () => {
  it("cancels the running cell, shuts every kernel down and refuses later calls", async () => {
    const { manager, kernels } = createManager({ mode: "session" });
    await manager.run({ sessionId: "x", cwd: dirA, code: "pid" });
    const running = manager.run({ sessionId: "y", cwd: dirA, code: "sleep 5000" });
    await sleep(20);
    await manager.dispose();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(kernels.every((k) => !k.isAlive)).toBe(true);
    await expect(manager.run({ cwd: dirA, code: "pid" })).rejects.toMatchObject({ code: "DISPOSED" });
  });

  it("ends a cell whose kernel is still starting as cancelled, and stops that kernel", async () => {
    const slow = createFakeFactory({ startDelayMs: 200 });
    const manager = new SessionManager({ createKernel: slow.factory, resolveInterpreter: fakeResolver });
    track(manager);
    const running = manager.run({ cwd: dirA, code: "set x 1" });
    await sleep(50);
    await manager.dispose();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.notices).toEqual([
      "eval cell cancelled before it started: the session manager was disposed",
    ]);
    expect(slow.kernels[0]?.isAlive).toBe(false);
    expect(slow.kernels[0]?.state.has("x")).toBe(false);
  });
});
