// Checkpoints in retained sessions with real kernels: an evicted session ends its root, runner and checkpoints.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-ckpt-"));
const managers: SessionManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.dispose()));
  rmSync(cwd, { recursive: true, force: true });
});

function textOf(outcome: SessionCellOutcome): string {
  return outcome.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
}

/** Every pid in the kernel's process group, as the live runner sees it. */
const GROUP_CODE = [
  "import os",
  "group = str(os.getpgrp())",
  "def group_of(pid):",
  "    try:",
  "        return open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()[2]",
  "    except OSError:",
  "        return None",
  "print(' '.join(p for p in os.listdir('/proc') if p.isdigit() and group_of(p) == group))",
].join("\n");

describe.skipIf(process.platform !== "linux")("checkpoints in retained sessions", () => {
  it("ends the root, the live runner and every checkpoint when an idle session is evicted", async () => {
    const manager = new SessionManager({ python: TEST_PYTHON, idleEvictMs: 300, checkpoints: { undo: 1 } });
    managers.push(manager);
    const call = manager.openCall({ cwd });
    try {
      await call.run({ code: "x = 1" });
      await call.withCheckpoints((book) => book.take("kept"));
      await call.run({ code: "x = 2" });
    } finally {
      await call.close();
    }
    const pids = textOf(await manager.run({ cwd, code: GROUP_CODE }))
      .trim()
      .split(" ")
      .map(Number);
    // The root, the live runner, "kept", the automatic undo point and the guard.
    expect(pids.length).toBeGreaterThanOrEqual(5);
    expect(await waitFor(() => manager.kernelCount === 0, 5000)).toBe(true);
    expect(await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), 5000)).toBe(true);
  });

  it("keeps checkpoints across calls of one session and restores them in a later call", async () => {
    const manager = new SessionManager({ python: TEST_PYTHON, checkpoints: {} });
    managers.push(manager);
    await manager.run({ cwd, code: "data = {'rows': 3}" });
    const first = manager.openCall({ cwd });
    await first.withCheckpoints((book) => book.take("three")).finally(() => first.close());
    await manager.run({ cwd, code: "data['rows'] = 0" });
    const second = manager.openCall({ cwd });
    await second.withCheckpoints((book) => book.restore("three")).finally(() => second.close());
    expect(textOf(await manager.run({ cwd, code: "print(data)" }))).toBe("{'rows': 3}\n");
  });
});
