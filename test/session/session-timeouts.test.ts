// Unit tests of timeouts, cancellation and the kill ladder wiring against a fake kernel.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ExecuteOptions } from "../../src/kernel/kernel.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { createFakeManagers, FakeKernel, fakeResolver, sleep, stdoutOf } from "./fake-kernel.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-timeouts-"));
const { createManager, disposeAll, track } = createFakeManagers();
afterEach(disposeAll);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("cell timeouts", () => {
  it("interrupts a cell that overruns its timeout and keeps the kernel and its state", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ cwd, code: "set x 7" });
    const started = performance.now();
    const outcome = await manager.run({ cwd, code: "sleep 60000", timeoutSec: 1 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(outcome.status).toBe("timeout");
    expect(outcome.notices).toEqual(["eval cell timed out after 1s; kernel interrupted but remains running"]);
    expect(kernels[0]?.interrupts).toBe(1);
    expect(stdoutOf(await manager.run({ cwd, code: "get x" }))).toBe("7");
    expect(kernels).toHaveLength(1);
  });

  it("does not say a per-call kernel remains running: the call that timed out shuts it down", async () => {
    const { manager, kernels } = createManager({ mode: "per-call" });
    const call = manager.openCall({ cwd });
    const outcome = await call.run({ code: "sleep 60000", timeoutSec: 1 });
    await call.close();
    expect(outcome.status).toBe("timeout");
    expect(outcome.notices).toEqual([
      "eval cell timed out after 1s; kernel interrupted; it ends with this call (per-call mode)",
    ]);
    expect(kernels[0]?.isAlive).toBe(false);
  });

  it("times each cell from its own start on the kernel's shared timer, in one call and across calls", async () => {
    const { manager, kernels } = createManager();
    // Cells that end in time, back to back, with the same budget: none of them is cut short by an earlier window.
    for (let i = 0; i < 4; i++) {
      const outcome = await manager.run({ cwd, code: "sleep 600", timeoutSec: 1 });
      expect(outcome.status).toBe("ok");
    }
    const call = manager.openCall({ cwd });
    try {
      expect((await call.run({ code: "sleep 700", timeoutSec: 1 })).status).toBe("ok");
      const started = performance.now();
      const late = await call.run({ code: "sleep 60000", timeoutSec: 1 });
      const elapsed = performance.now() - started;
      expect(late.status).toBe("timeout");
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(3000);
      expect((await call.run({ code: "set y 2", timeoutSec: 1 })).status).toBe("ok");
    } finally {
      await call.close();
    }
    expect(kernels).toHaveLength(1);
    expect(kernels[0]?.interrupts).toBe(1);
  });

  it("clamps the timeout to the manager's maximum", async () => {
    const { manager } = createManager({ maxTimeoutSec: 1 });
    const outcome = await manager.run({ cwd, code: "sleep 60000", timeoutSec: 100 });
    expect(outcome.status).toBe("timeout");
    expect(outcome.notices[0]).toMatch(/after 1s/);
  });

  it("kills a kernel that ignores the interrupt after the grace and gives the next call a fresh kernel", async () => {
    const { manager, kernels } = createManager({ interruptGraceMs: 200 });
    await manager.run({ cwd, code: "set x 7" });
    const started = performance.now();
    const outcome = await manager.run({ cwd, code: "hang", timeoutSec: 1 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(outcome.status).toBe("killed");
    expect(outcome.notices).toEqual([
      "eval cell timed out after 1s; the kernel did not stop within 0.2s of the interrupt and was killed; state was lost",
    ]);
    expect(kernels[0]?.isAlive).toBe(false);
    const next = await manager.run({ cwd, code: "get x" });
    expect(stdoutOf(next)).toBe("<unset>");
    expect(next.notices).toEqual([
      "kernel restarted: previous kernel was killed after it ignored an interrupt; state was lost",
    ]);
  });

  it("reports killed when the kernel's own escalation kills it first", async () => {
    const { manager, kernels } = createManager({ interruptGraceMs: 5000 });
    const running = manager.run({ cwd, code: "hang", timeoutSec: 1 });
    await sleep(1100);
    const kernel = kernels[0] as FakeKernel;
    expect(kernel.interrupts).toBe(1);
    kernel.killAfterInterrupt();
    const outcome = await running;
    expect(outcome.status).toBe("killed");
    expect(outcome.notices[0]).toMatch(/was killed; state was lost$/);
    const next = await manager.run({ cwd, code: "pid" });
    expect(next.status).toBe("ok");
    expect(kernels).toHaveLength(2);
  });
});

describe("one owner of the kill", () => {
  it("hands the kernel the grace and leaves the kill to it: the session itself never kills", async () => {
    const seen: ExecuteOptions[] = [];
    const kernels: FakeKernel[] = [];
    const manager = track(
      new SessionManager({
        resolveInterpreter: fakeResolver,
        interruptGraceMs: 200,
        createKernel: (spec) => {
          const kernel = new FakeKernel(spec);
          const execute = kernel.execute.bind(kernel);
          // A kernel whose own ladder is far longer than the grace it was given.
          kernel.execute = (code, options = {}) => {
            seen.push(options);
            return execute(code, { ...options, interruptGraceMs: 60_000 });
          };
          kernels.push(kernel);
          return kernel;
        },
      }),
    );
    const running = manager.run({ cwd, code: "hang", timeoutSec: 1 });
    await sleep(1000 + 200 + 800);
    const kernel = kernels[0] as FakeKernel;
    expect(kernel.interrupts).toBe(1);
    expect(kernel.isAlive).toBe(true);
    expect(seen[0]?.interruptGraceMs).toBe(200);
    kernel.killAfterInterrupt();
    const outcome = await running;
    expect(outcome.status).toBe("killed");
    expect(outcome.notices[0]).toMatch(/^eval cell timed out after 1s; the kernel did not stop within 0\.2s/);
  });

  it("passes no grace when none is configured, so each runtime keeps its own", async () => {
    const seen: ExecuteOptions[] = [];
    const manager = track(
      new SessionManager({
        resolveInterpreter: fakeResolver,
        createKernel: (spec) => {
          const kernel = new FakeKernel(spec);
          const execute = kernel.execute.bind(kernel);
          kernel.execute = (code, options = {}) => {
            seen.push(options);
            return execute(code, options);
          };
          return kernel;
        },
      }),
    );
    expect((await manager.run({ cwd, code: "set x 1" })).status).toBe("ok");
    expect(seen).toHaveLength(1);
    expect("interruptGraceMs" in (seen[0] as object)).toBe(false);
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("asks the kernel to keep no outputs when the caller keeps them through onOutput", async () => {
    const { manager, kernels } = createManager();
    const seen: string[] = [];
    const kept = await manager.run({ cwd, code: "set x 5" });
    const owned = await manager.run({
      cwd,
      code: "get x",
      retainOutputs: false,
      onOutput: (output) => seen.push(output.type === "stream" ? output.text : output.type),
    });
    expect(kept.status).toBe("ok");
    expect(owned.outputs).toEqual([]);
    expect(seen).toEqual(["5"]);
    expect(stdoutOf(await manager.run({ cwd, code: "get x" }))).toBe("5");
    expect(kernels).toHaveLength(1);
  });
});

describe("cancellation", () => {
  it("ends a cell as cancelled when the caller's signal aborts, and the kernel keeps its state", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ cwd, code: "set x 1" });
    const controller = new AbortController();
    const running = manager.run({ cwd, code: "sleep 60000", signal: controller.signal });
    await sleep(30);
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.notices).toEqual(["eval cell cancelled; kernel interrupted but remains running"]);
    expect(stdoutOf(await manager.run({ cwd, code: "get x" }))).toBe("1");
    expect(kernels).toHaveLength(1);
  });

  it("does not start a cell whose signal is already aborted", async () => {
    const { manager, kernels } = createManager();
    await manager.run({ cwd, code: "pid" });
    const outcome = await manager.run({ cwd, code: "set x 1", signal: AbortSignal.abort() });
    expect(outcome.status).toBe("cancelled");
    expect(kernels[0]?.state.has("x")).toBe(false);
  });

  it("cancels through the call's signal as well as the cell's", async () => {
    const { manager } = createManager();
    const controller = new AbortController();
    const call = manager.openCall({ cwd, signal: controller.signal });
    const running = call.run({ code: "sleep 60000" });
    await sleep(30);
    controller.abort();
    expect((await running).status).toBe("cancelled");
    await call.close();
  });

  it("reports a cell that finished just as the abort came as it really ended", async () => {
    const { manager } = createManager();
    const controller = new AbortController();
    const running = manager.run({ cwd, code: "pid", signal: controller.signal });
    await sleep(0);
    controller.abort();
    const outcome = await running;
    expect(["ok", "cancelled"]).toContain(outcome.status);
    if (outcome.status === "ok") expect(outcome.notices).toEqual([]);
  });
});
