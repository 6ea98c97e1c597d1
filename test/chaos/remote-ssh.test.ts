// Remote kernels for real: a throwaway sshd on 127.0.0.1, kernels through `ssh -p PORT -i KEY -o BatchMode=yes …`:
// state, rich output, interrupt, a timeout kill with children left on the far side, a dropped connection, and
// an unreachable host.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { freePort, sshdUnavailable, sshLauncher, startSshd, type TestSshd } from "../helpers/sshd.js";
import { createManager, textOf } from "./chaos-helpers.js";

const unavailable = sshdUnavailable();
requireOrExplainSkip("the remote-kernel tests over a real sshd", unavailable);
let sshd: TestSshd | undefined;

beforeAll(async () => {
  if (!unavailable) sshd = await startSshd();
}, 30_000);
afterAll(async () => {
  await sshd?.stop();
});

function remoteManager(options: { interruptGraceMs?: number } = {}) {
  return createManager({ python: TEST_PYTHON, launcher: sshd!.launcher, ...options });
}

/** Cell code that starts three `sleep` children (in the group, orphaned to the runner, in their own session). */
function startChildren(marker: number): string {
  return [
    "import os, subprocess",
    `a = subprocess.Popen(['sleep', '${marker}'])`,
    `os.system('sleep ${marker + 1} &')`,
    `b = subprocess.Popen(['sleep', '${marker + 2}'], start_new_session=True)`,
    "print(os.getpid(), a.pid, b.pid, flush=True)",
  ].join("\n");
}

function sleepers(marker: number): number[] {
  const found: number[] = [];
  for (const offset of [0, 1, 2]) {
    for (const pid of findSleeps(String(marker + offset))) found.push(pid);
  }
  return found;
}

function findSleeps(seconds: string): number[] {
  // Same machine: the far side's processes are visible in /proc.
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${seconds}\0` &&
        isProcessAlive(Number(entry))
      )
        pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

describe.skipIf(unavailable !== undefined)(
  `chaos: remote kernels over a real sshd${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    it("keeps state and shows rich output through ssh", async () => {
      const manager = remoteManager();
      expect((await manager.run({ code: "x = 41" })).status).toBe("ok");
      const value = await manager.run({ code: "x + 1" });
      expect(textOf(value)).toBe("42");
      const rich = await manager.run({
        code: "class Bold:\n    def _repr_html_(self):\n        return '<b>far</b>'\nBold()",
      });
      const result = rich.outputs.find((o) => o.type === "result");
      expect(result?.type === "result" && result.data["text/html"]).toBe("<b>far</b>");
    }, 60_000);

    it("interrupts a busy cell through ssh and keeps the kernel", async () => {
      const manager = remoteManager();
      await manager.run({ code: "kept = 5" });
      const controller = new AbortController();
      const running = manager.run({
        code: "while True:\n    pass",
        timeoutSec: 60,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 1500);
      const cancelled = await running;
      expect(cancelled.status).toBe("cancelled");
      expect(textOf(await manager.run({ code: "kept" }))).toBe("5");
    }, 60_000);

    it("kills a cell that ignores SIGINT on timeout and leaves nothing on the far side", async () => {
      const manager = remoteManager({ interruptGraceMs: 1000 });
      const marker = 4200 + Math.floor(Math.random() * 700);
      const code = `import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n${startChildren(marker)}\nwhile True:\n    pass`;
      const outcome = await manager.run({ code, timeoutSec: 2 });
      expect(outcome.status).toBe("killed");
      const [runner] = textOf(outcome).trim().split(" ").map(Number) as [number];
      expect(await waitFor(() => !isProcessAlive(runner) && sleepers(marker).length === 0, 10_000)).toBe(
        true,
      );
      expect(textOf(await manager.run({ code: "'fresh'" }))).toBe("'fresh'");
    }, 60_000);

    it("reports a dropped connection as a lost launcher connection and cleans the far side", async () => {
      const manager = remoteManager();
      const marker = 4900 + Math.floor(Math.random() * 700);
      const before = new Set(sshd!.sessionPids());
      let printed = "";
      const running = manager.run({
        code: `${startChildren(marker)}\nimport time\ntime.sleep(300)`,
        timeoutSec: 120,
        onOutput: (o) => {
          if (o.type === "stream") printed += o.text;
        },
      });
      expect(await waitFor(() => /\d+ \d+ \d+/.test(printed), 20_000)).toBe(true);
      const [runner] = printed.trim().split(" ").map(Number) as [number];
      // The per-connection sshd process of this kernel: killing it drops the connection, as a network failure would.
      const session = sshd!.sessionPids().filter((pid) => !before.has(pid));
      expect(session.length).toBeGreaterThan(0);
      for (const pid of session) process.kill(pid, "SIGKILL");
      const outcome = await running;
      expect(outcome.status).toBe("died");
      expect(outcome.notices.join("\n")).toContain("lost the connection through the launcher");
      expect(await waitFor(() => !isProcessAlive(runner) && sleepers(marker).length === 0, 10_000)).toBe(
        true,
      );
    }, 60_000);

    it("fails at once with ssh's own words when the host is unreachable", async () => {
      const port = await freePort(); // nothing listens there
      const manager = createManager({ python: TEST_PYTHON, launcher: sshLauncher(port, "/nonexistent-key") });
      const started = Date.now();
      const error = await manager.run({ code: "1" }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(isEvalkitError(error, "LAUNCHER_FAILED")).toBe(true);
      const message = (error as Error).message;
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toContain("Connection refused");
      expect(message).not.toMatch(/in a row|crash|giving up/);
    }, 60_000);
  },
);
