// Integration tests of SessionManager with real Python kernels: state, isolation, modes, eviction, crashes, bridge.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { buildPlainEnv } from "../../src/session/default-kernels.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome, SessionManagerOptions } from "../../src/session/session-types.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-py-"));
const diesOnStart = fileURLToPath(new URL("../fixtures/session-dies-on-start.sh", import.meta.url));
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

async function pidOf(manager: SessionManager, sessionId = "default"): Promise<number> {
  const outcome = await manager.run({ sessionId, cwd, code: "import os\nos.getpid()" });
  return Number(textOf(outcome));
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("retained Python sessions", () => {
  it("keep variables across calls and isolate session ids", async () => {
    const manager = createManager();
    await manager.run({ sessionId: "a", cwd, code: "x = 41" });
    const a = await manager.run({ sessionId: "a", cwd, code: "x + 1" });
    expect(a.status).toBe("ok");
    expect(textOf(a)).toBe("42");
    const b = await manager.run({ sessionId: "b", cwd, code: "x" });
    expect(b.status).toBe("error");
    expect(b.error?.ename).toBe("NameError");
    expect(manager.kernelCount).toBe(2);
  });

  it("start kernels in the session's working directory", async () => {
    const manager = createManager();
    const outcome = await manager.run({ cwd, code: "import os\nos.getcwd()" });
    expect(textOf(outcome)).toBe(`'${cwd}'`);
  });

  it("keep nothing in per-call mode, and leave no process behind", async () => {
    const manager = createManager({ mode: "per-call" });
    const call = manager.openCall({ cwd });
    await call.run({ code: "x = 1" });
    const pid = Number(textOf(await call.run({ code: "import os\nprint(x, os.getpid())" })).split(" ")[1]);
    await call.close();
    expect(isProcessAlive(pid)).toBe(false);
    const next = await manager.run({ cwd, code: "x" });
    expect(next.error?.ename).toBe("NameError");
    expect(manager.kernelCount).toBe(0);
  });

  it("evict a kernel idle longer than the idle timeout, ending its process", async () => {
    const manager = createManager({ idleEvictMs: 300 });
    const pid = await pidOf(manager);
    expect(await waitFor(() => !isProcessAlive(pid), 5000)).toBe(true);
    expect(manager.kernelCount).toBe(0);
    const next = await manager.run({ cwd, code: "1" });
    expect(next.notices).toEqual([
      "kernel restarted: previous kernel was shut down after 300ms idle; state was lost",
    ]);
  });

  it("evict the least recently used kernel beyond the kernel limit", async () => {
    const manager = createManager({ maxKernels: 1 });
    const first = await pidOf(manager, "one");
    const second = await pidOf(manager, "two");
    expect(first).not.toBe(second);
    expect(await waitFor(() => !isProcessAlive(first), 5000)).toBe(true);
    expect(isProcessAlive(second)).toBe(true);
    expect(manager.kernelCount).toBe(1);
  });

  it("replace a kernel killed while idle and say that state was lost", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "x = 1" });
    const pid = await pidOf(manager);
    process.kill(pid, "SIGKILL");
    expect(await waitFor(() => manager.kernelCount === 0, 5000)).toBe(true);
    const next = await manager.run({ cwd, code: "'x' in globals()" });
    expect(next.status).toBe("ok");
    expect(textOf(next)).toBe("False");
    expect(next.notices).toEqual([
      "kernel restarted: previous kernel exited (signal SIGKILL: out of memory, or killed by another process); state was lost",
    ]);
  });

  it("report os._exit mid-cell as died with its exit code, without re-running it, and recover", async () => {
    const manager = createManager();
    const marker = path.join(cwd, "ran-count.txt");
    const code = `with open(${JSON.stringify(marker)}, "a") as f:\n    f.write("x")\nimport os\nos._exit(1)`;
    const outcome = await manager.run({ cwd, code });
    expect(outcome.status).toBe("died");
    expect(outcome.exit?.exitCode).toBe(1);
    expect(outcome.notices[0]).toBe(
      "kernel died during the cell (exit code 1); state was lost and the cell was not re-run",
    );
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(marker, "utf8")).toBe("x");
    const next = await manager.run({ cwd, code: "2 + 2" });
    expect(next.status).toBe("ok");
    expect(textOf(next)).toBe("4");
    expect(next.notices).toEqual(["kernel restarted: previous kernel exited (exit code 1); state was lost"]);
  });

  it("fail with KERNEL_CRASH_LOOP, quickly, when every kernel exits on start", async () => {
    const manager = createManager({
      resolveInterpreter: async () => ({ executable: diesOnStart, env: buildPlainEnv({}) }),
    });
    const started = performance.now();
    const err = await manager.run({ cwd, code: "1" }).catch((e: unknown) => e);
    expect(isEvalkitError(err, "KERNEL_CRASH_LOOP")).toBe(true);
    expect((err as Error).message).toMatch(/failed 2 times in a row/);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("leave no process behind after dispose", async () => {
    const manager = createManager();
    const pids = [await pidOf(manager, "p1"), await pidOf(manager, "p2")];
    let hasStarted = false;
    const running = manager.run({
      sessionId: "p3",
      cwd,
      code: "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(30)",
      onOutput: (output) => {
        if (output.type === "stream") {
          pids.push(Number(output.text.trim()));
          hasStarted = true;
        }
      },
    });
    expect(await waitFor(() => hasStarted, 10_000)).toBe(true);
    await manager.dispose();
    expect((await running).status).toBe("cancelled");
    expect(pids.some(isProcessAlive)).toBe(false);
    expect(manager.kernelCount).toBe(0);
  });
});

describe("bridge calls from Python", () => {
  const callCompletion =
    "from evalkit_kernel.core import bridge\nbridge.call('completion', {'prompt': 'hi'})";

  it("return the host handler's value to the cell", async () => {
    const manager = createManager({ bridge: { completion: (params) => ({ echo: params.prompt }) } });
    const outcome = await manager.run({ cwd, code: callCompletion });
    expect(outcome.status).toBe("ok");
    expect(textOf(outcome)).toBe("{'echo': 'hi'}");
  });

  it("fail at once, naming the helper, when no handler is registered", async () => {
    const manager = createManager();
    await manager.run({ cwd, code: "1" });
    const started = performance.now();
    const outcome = await manager.run({ cwd, code: callCompletion });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(outcome.status).toBe("error");
    expect(outcome.error?.evalue).toContain("no host handler registered for completion()");
  });

  it("turn a handler's thrown error into a Python exception with its message", async () => {
    const manager = createManager({
      bridge: {
        completion: () => {
          throw new Error("quota exceeded");
        },
      },
    });
    const outcome = await manager.run({ cwd, code: callCompletion });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.evalue).toContain("quota exceeded");
  });

  it("pause the timeout during a slow completion, while a busy loop after it still times out", async () => {
    const manager = createManager({
      bridge: { completion: () => new Promise((resolve) => setTimeout(() => resolve("late"), 1800)) },
    });
    const slow = await manager.run({ cwd, code: `${callCompletion}`, timeoutSec: 1 });
    expect(slow.status).toBe("ok");
    expect(textOf(slow)).toBe("'late'");
    const busy = await manager.run({
      cwd,
      code: `r = ${callCompletion.split("\n")[1]}\nwhile True: pass`,
      timeoutSec: 1,
    });
    expect(busy.status).toBe("timeout");
    expect(textOf(await manager.run({ cwd, code: "r" }))).toBe("'late'");
  });

  it("abort the handler's signal when the cell is interrupted", async () => {
    let handlerSignal: AbortSignal | undefined;
    const manager = createManager({
      bridge: {
        tools: {
          wait: (_args, context) => {
            handlerSignal = context.signal;
            return new Promise((resolve) => setTimeout(resolve, 10_000));
          },
        },
      },
    });
    const code = "from evalkit_kernel.core import bridge\nbridge.call('tool', {'name': 'wait', 'args': {}})";
    const started = performance.now();
    const outcome = await manager.run({ cwd, code, timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(handlerSignal?.aborted).toBe(true);
  });
});

describe("kernels behind a launcher prefix", () => {
  const launcher = fileURLToPath(new URL("../fixtures/session-launcher.sh", import.meta.url));

  it("run through the launcher, keep state, and are interrupted through the protocol", async () => {
    const mark = path.join(cwd, "launcher-mark.txt");
    const manager = createManager({ launcher: [launcher], env: { SESSION_LAUNCHER_MARK: mark } });
    await manager.run({ cwd, code: "z = 3" });
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(mark, "utf8").trim()).toBe("launched");
    const outcome = await manager.run({ cwd, code: "while True: pass", timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(textOf(await manager.run({ cwd, code: "z * 2" }))).toBe("6");
  });
});

describe("warming a session", () => {
  it("starts the session's kernel without running a cell, and the first cell runs on it as cell 1", async () => {
    const manager = createManager();
    await manager.warm({ cwd, language: "py" });
    expect(manager.list()).toMatchObject([{ language: "py", isBusy: false }]);
    const first = await manager.run({ cwd, code: "1+1" });
    expect(first.executionCount).toBe(1);
    expect(manager.kernelCount).toBe(1);
  });

  it("does nothing in per-call mode, and refuses an unknown language naming the field", async () => {
    const manager = createManager({ mode: "per-call" });
    await manager.warm({ cwd, language: "py" });
    expect(manager.kernelCount).toBe(0);
    const err = await manager.warm({ cwd, language: "rb" as "py" }).catch((e: unknown) => e);
    expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
    expect((err as Error).message).toContain("language");
  });

  it("leaves a session that a call holds to that call", async () => {
    const manager = createManager();
    const running = manager.run({ cwd, code: "import time\ntime.sleep(0.3)\n7" });
    await manager.warm({ cwd, language: "py" });
    expect(textOf(await running)).toBe("7");
    expect(manager.kernelCount).toBe(1);
  });
});
