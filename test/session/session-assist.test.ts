// What a front end asks of a session's kernel besides cells, on real Python and JS kernels held by a SessionManager.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import {
  checkCompleteInSession,
  completeInSession,
  describeSessionKernel,
  interruptInSession,
  restartInSession,
  type SessionKernelRef,
} from "../../src/session/session-assist.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const cwd = realpathSync(mkdtempSync(path.join(tmpdir(), "evalkit-session-assist-")));
const managers: SessionManager[] = [];
const py: SessionKernelRef = { sessionId: "assist", cwd, language: "py" };
const js: SessionKernelRef = { sessionId: "assist", cwd, language: "js" };

function createManager(): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON });
  managers.push(manager);
  return manager;
}

function textOf(outcome: SessionCellOutcome): string {
  return outcome.outputs
    .map((o) => (o.type === "stream" ? o.text : o.type === "result" ? String(o.data["text/plain"]) : ""))
    .join("");
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("session assist", () => {
  it("completes names from the session's live Python namespace and tells whole statements from open ones", async () => {
    const manager = createManager();
    await manager.run({ ...py, code: "dataframe_rows = 7" });
    const completion = await completeInSession(manager, py, "x = dataframe_r");
    expect(completion.matches).toContain("dataframe_rows");
    expect(completion.start).toBe("x = ".length);
    expect(await checkCompleteInSession(manager, py, "for i in range(3):")).toEqual({
      status: "incomplete",
      indent: "    ",
    });
    expect((await checkCompleteInSession(manager, py, "print(1)"))?.status).toBe("complete");
    expect((await checkCompleteInSession(manager, py, "1 +* 2"))?.status).toBe("invalid");
  });

  it("completes at a cursor inside the line, not only at its end", async () => {
    const manager = createManager();
    await manager.run({ ...py, code: "settings_value = 1" });
    const code = "settings_v + 1";
    const completion = await completeInSession(manager, py, code, "settings_v".length);
    expect(completion.start).toBe(0);
    expect(completion.matches).toContain("settings_value");
  });

  it("gives no matches and no answer without a live kernel, and never fails for a language nothing serves", async () => {
    const manager = createManager();
    expect(await completeInSession(manager, py, "pri")).toEqual({ start: 3, matches: [] });
    expect(await checkCompleteInSession(manager, py, "def f():")).toBeUndefined();
    // Nothing started a kernel by asking.
    expect(manager.kernelCount).toBe(0);
    const cobol: SessionKernelRef = { ...py, language: "cobol" };
    expect(await completeInSession(manager, cobol, "DISPLAY")).toEqual({ start: 7, matches: [] });
    expect(await checkCompleteInSession(manager, cobol, "DISPLAY")).toBeUndefined();
  });

  it("completes JavaScript names from the session's JS kernel", async () => {
    const manager = createManager();
    await manager.run({ ...js, code: "const dataframe_rows = 7" });
    const completion = await completeInSession(manager, js, "dataframe_r");
    expect(completion.matches).toContain("dataframe_rows");
  });

  it("describes the live Python kernel as it reported itself: executable, version and pid", async () => {
    const manager = createManager();
    expect(await describeSessionKernel(manager, py)).toBeUndefined();
    const outcome = await manager.run({
      ...py,
      code: "import os, sys, platform\nprint(os.getpid(), platform.python_version())",
    });
    const [pid, version] = textOf(outcome).trim().split(" ");
    const described = await describeSessionKernel(manager, py);
    expect(described?.pid).toBe(Number(pid));
    expect(described?.version).toBe(version);
    expect(described?.executable).toMatch(/python/);
  });

  it("restarts the session's kernel: a new process, its variables gone, and no restart notice on the next cell", async () => {
    const manager = createManager();
    await manager.run({ ...py, code: "kept = 1" });
    const before = (await describeSessionKernel(manager, py))?.pid ?? 0;
    await restartInSession(manager, py);
    const after = (await describeSessionKernel(manager, py))?.pid ?? 0;
    expect(after).not.toBe(before);
    expect(await waitFor(() => !isProcessAlive(before))).toBe(true);
    const outcome = await manager.run({ ...py, code: "kept" });
    expect(outcome.error?.ename).toBe("NameError");
    expect(outcome.notices.join("\n")).not.toContain("restarted");
    expect(manager.kernelCount).toBe(1);
  });

  it("repeats an interrupt on a running cell that caught the first one", async () => {
    const manager = createManager();
    const seen: KernelOutput[] = [];
    const running = manager.run({
      ...py,
      code: [
        "import time",
        "try:",
        "    print('started', flush=True); time.sleep(30)",
        "except KeyboardInterrupt:",
        "    print('caught', flush=True); time.sleep(30)",
      ].join("\n"),
      onOutput: (output) => seen.push(output),
    });
    const printed = () => seen.map((o) => (o.type === "stream" ? o.text : "")).join("");
    expect(await waitFor(() => printed().includes("started"), 20_000)).toBe(true);
    await interruptInSession(manager, py);
    expect(await waitFor(() => printed().includes("caught"), 10_000)).toBe(true);
    await interruptInSession(manager, py);
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.durationMs).toBeLessThan(20_000);
    expect(textOf(await manager.run({ ...py, code: "1 + 1" }))).toBe("2");
  }, 40_000);
});
