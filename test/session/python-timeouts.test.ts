// Integration tests of timeouts, cancellation and the kill ladder with real Python kernels and /proc checks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome, SessionManagerOptions } from "../../src/session/session-types.js";
import { findProcesses, isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-timeouts-py-"));
const managers: SessionManager[] = [];

function createManager(options: SessionManagerOptions = {}): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON, ...options });
  managers.push(manager);
  return manager;
}

function textOf(outcome: SessionCellOutcome): string {
  return outcome.outputs
    .map((o) => (o.type === "stream" ? o.text : o.type === "result" ? String(o.data["text/plain"]) : ""))
    .join("");
}

async function timed<T>(work: Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work;
  return [value, performance.now() - started];
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("cell timeouts with real Python", () => {
  it("interrupt a busy loop, keep the kernel, and keep earlier variables", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "kept = 'still here'" });
    const [outcome, ms] = await timed(manager.run({ cwd, code: "while True: pass", timeoutSec: 1 }));
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.ename).toBe("KeyboardInterrupt");
    expect(outcome.notices).toEqual(["eval cell timed out after 1s; kernel interrupted but remains running"]);
    expect(ms).toBeLessThan(3000);
    const next = await manager.run({ cwd, code: "kept" });
    expect(textOf(next)).toBe("'still here'");
    expect(next.notices).toEqual([]);
  });

  it("interrupt time.sleep", async () => {
    const manager = createManager();
    const [outcome, ms] = await timed(
      manager.run({ cwd, code: "import time\ntime.sleep(100)", timeoutSec: 1 }),
    );
    expect(outcome.status).toBe("timeout");
    expect(ms).toBeLessThan(3000);
  });

  it("interrupt a top-level await and keep the kernel alive", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "before = 1" });
    const code = "import asyncio\nawait asyncio.sleep(100)";
    const [outcome, ms] = await timed(manager.run({ cwd, code, timeoutSec: 1 }));
    expect(outcome.status).toBe("timeout");
    expect(ms).toBeLessThan(3000);
    const next = await manager.run({ cwd, code: "before + 1" });
    expect(next.status).toBe("ok");
    expect(textOf(next)).toBe("2");
    expect(manager.kernelCount).toBe(1);
  });

  it("kill a kernel that blocks SIGINT within the grace and give the next call a fresh kernel", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "x = 1" });
    const pid = Number(textOf(await manager.run({ cwd, code: "import os\nos.getpid()" })));
    const code = "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\nwhile True: pass";
    const [outcome, ms] = await timed(manager.run({ cwd, code, timeoutSec: 1 }));
    expect(outcome.status).toBe("killed");
    expect(outcome.notices).toEqual([
      "eval cell timed out after 1s; the kernel did not stop within 5s of the interrupt and was killed; state was lost",
    ]);
    // 1 s budget + 5 s grace + the shutdown ladder's own short graces.
    expect(ms).toBeLessThan(1000 + 5000 + 3500);
    expect(isProcessAlive(pid)).toBe(false);
    const next = await manager.run({ cwd, code: "'x' in globals()" });
    expect(next.status).toBe("ok");
    expect(textOf(next)).toBe("False");
    expect(next.notices).toEqual([
      "kernel restarted: previous kernel was killed after it ignored an interrupt; state was lost",
    ]);
  }, 20_000);

  it("honour a shorter configured interrupt grace", async () => {
    const manager = createManager({ interruptGraceMs: 500 });
    const code = "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\nwhile True: pass";
    const [outcome, ms] = await timed(manager.run({ cwd, code, timeoutSec: 1 }));
    expect(outcome.status).toBe("killed");
    expect(ms).toBeLessThan(1000 + 500 + 3500);
  });
});

describe("child processes of an interrupted cell", () => {
  it("are stopped with the kernel's process group (subprocess.Popen)", async () => {
    const manager = createManager();
    const code = 'import subprocess\nsubprocess.Popen(["sleep", "317"]).wait()';
    const outcome = await manager.run({ cwd, code, timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(await waitFor(() => findProcesses("sleep", "317").length === 0, 5000)).toBe(true);
  }, 20_000);

  it("are stopped for shell escapes (!sleep)", async () => {
    const manager = createManager();
    const outcome = await manager.run({ cwd, code: "!sleep 319", timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(await waitFor(() => findProcesses("sleep", "319").length === 0, 5000)).toBe(true);
  }, 20_000);

  it("are stopped for shell commands too (os.system)", async () => {
    const manager = createManager();
    const outcome = await manager.run({ cwd, code: 'import os\nos.system("sleep 318")', timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(await waitFor(() => findProcesses("sleep", "318").length === 0, 5000)).toBe(true);
  }, 20_000);
});

describe("cancellation with real Python", () => {
  it("ends a cell as cancelled when the caller aborts, and the kernel stays usable", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "y = 5" });
    const controller = new AbortController();
    const running = manager.run({ cwd, code: "import time\ntime.sleep(100)", signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const [outcome, ms] = await timed(running);
    expect(outcome.status).toBe("cancelled");
    expect(ms).toBeLessThan(3000);
    expect(textOf(await manager.run({ cwd, code: "y" }))).toBe("5");
  });

  it("makes input() fail at once with a clear error, and the kernel still works", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "1" });
    const [outcome, ms] = await timed(manager.run({ cwd, code: "input('name? ')", timeoutSec: 30 }));
    expect(ms).toBeLessThan(1000);
    expect(outcome.status).toBe("error");
    expect(`${outcome.error?.ename}: ${outcome.error?.evalue}`).toMatch(/stdin|input/i);
    expect(textOf(await manager.run({ cwd, code: "6 * 7" }))).toBe("42");
  });

  it("answers input() through onInputRequest, with the wait not counted against the timeout", async () => {
    const manager = createManager();
    const call = manager.openCall({
      cwd,
      onInputRequest: (prompt) =>
        new Promise((resolve) => setTimeout(() => resolve(`typed after ${prompt}`), 1500)),
    });
    const outcome = await call.run({ code: "input('name?')", timeoutSec: 1 });
    await call.close();
    expect(outcome.status).toBe("ok");
    expect(textOf(outcome)).toContain("typed after name?");
  });
});
