// Hostile cells: a kernel killed, crashing or sabotaging its own channel ends with a clear outcome, the next
// call gets a working kernel, and /proc shows no process left behind.
import { describe, expect, it } from "vitest";
import { createManager, findLeftovers, kernelPid, sabotage, textOf } from "./chaos-helpers.js";

async function expectRecovered(manager: ReturnType<typeof createManager>, oldPid: number) {
  const next = await manager.run({ code: "import os\nprint(6 * 7)\nos.getpid()", timeoutSec: 10 });
  expect(next.status).toBe("ok");
  expect(textOf(next)).toMatch(/^42\n\d+$/);
  expect(Number(textOf(next).split("\n")[1])).not.toBe(oldPid);
}

describe("chaos: the kernel dies under a cell", () => {
  it("reports a kernel SIGKILLed while streaming output as died, and the next call gets a fresh kernel", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    let chunks = 0;
    const started = Date.now();
    const outcome = await manager.run({
      code: "import sys\nwhile True:\n    sys.stdout.write('x' * 1000 + '\\n')",
      timeoutSec: 30,
      onOutput: (output) => {
        if (output.type === "stream" && ++chunks === 5) process.kill(pid, "SIGKILL");
      },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(chunks).toBeGreaterThanOrEqual(5);
    expect(outcome.status).toBe("died");
    expect(outcome.exit?.signal).toBe("SIGKILL");
    expect(outcome.notices.join("\n")).toMatch(/state was lost/);
    expect(await findLeftovers(pid, [pid])).toEqual([]);
    await expectRecovered(manager, pid);
  });

  it("reports os._exit inside a parallel() worker thread as died with its exit code", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    const outcome = await manager.run({
      code: [
        "import os, time",
        "def ok():",
        "    time.sleep(0.2)",
        "    return 1",
        "def boom():",
        "    time.sleep(0.05)",
        "    os._exit(3)",
        "parallel([ok, boom, ok])",
      ].join("\n"),
      timeoutSec: 20,
    });
    expect(outcome.status).toBe("died");
    expect(outcome.exit?.exitCode).toBe(3);
    expect(await findLeftovers(pid, [pid])).toEqual([]);
    await expectRecovered(manager, pid);
  });

  it("reports a segfault (ctypes.string_at(0)) as died with SIGSEGV", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    const outcome = await manager.run({ code: "import ctypes\nctypes.string_at(0)", timeoutSec: 20 });
    expect(outcome.status).toBe("died");
    expect(outcome.exit?.signal).toBe("SIGSEGV");
    expect(outcome.notices.join("\n")).toMatch(/SIGSEGV/);
    expect(await findLeftovers(pid, [pid])).toEqual([]);
    await expectRecovered(manager, pid);
  });

  it("kills 50 children a cell started before it exited the kernel", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    const outcome = await manager.run({
      code: [
        "import os, subprocess, sys",
        "children = [subprocess.Popen(['sleep', '341']) for _ in range(50)]",
        "with open('/dev/null', 'w'):",
        "    pass",
        "sys.stdout.write(' '.join(str(c.pid) for c in children) + '\\n')",
        "sys.stdout.flush()",
        "import time; time.sleep(0.3)",
        "os._exit(0)",
      ].join("\n"),
      timeoutSec: 20,
    });
    expect(outcome.status).toBe("died");
    const children = textOf(outcome).trim().split(" ").map(Number);
    expect(children).toHaveLength(50);
    expect(await findLeftovers(pid, [pid, ...children])).toEqual([]);
    await expectRecovered(manager, pid);
  });
});

describe("chaos: a cell sabotages the kernel's file descriptors", () => {
  it("keeps working after a cell closes fd 1 and fd 2, and captures later output in order", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    const closing = await manager.run({
      code: "import os\nprint('before')\nos.close(1)\nos.close(2)\nprint('after close')",
      timeoutSec: 10,
    });
    expect(["ok", "error"]).toContain(closing.status);
    expect(textOf(closing)).toMatch(/^before\n/);
    const next = await manager.run({
      code: "import os, sys\nprint('one')\nsys.stdout.flush()\nos.write(1, b'two\\n')\nprint('three', file=sys.stderr)\n7",
      timeoutSec: 10,
    });
    expect(next.status).toBe("ok");
    const streams = next.outputs.filter((o) => o.type === "stream");
    expect(
      streams
        .filter((o) => o.name === "stdout")
        .map((o) => o.text)
        .join(""),
    ).toBe("one\ntwo\n");
    expect(
      streams
        .filter((o) => o.name === "stderr")
        .map((o) => o.text)
        .join(""),
    ).toBe("three\n");
    expect(next.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "7" } });
    expect(await kernelPid(manager)).toBe(pid);
  });

  it("kills the kernel when a cell dup2s /dev/null over its protocol channel, and recovers", async () => {
    const manager = createManager();
    const pid = await kernelPid(manager);
    const started = Date.now();
    const outcome = await manager.run({
      code: sabotage(["pipe:", "socket:"], "import time\ntime.sleep(60)"),
      timeoutSec: 2,
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(["died", "killed"]).toContain(outcome.status);
    expect(outcome.notices.join("\n")).toMatch(/state was lost/);
    expect(await findLeftovers(pid, [pid], 8000)).toEqual([]);
    await expectRecovered(manager, pid);
  });
});
