// Checkpoints, restore and undo through the eval tool on a real interpreter (docs/checkpoints.md).
import { afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { cleanupTools, makeTempDir, makeTool, textOf } from "./tool-helpers.js";

afterEach(cleanupTools);

const isLinux = process.platform === "linux";

async function stdout(tool: ReturnType<typeof makeTool>, code: string): Promise<string> {
  const result = await tool.execute({ cells: [{ code }] });
  expect(result.details.cells[0]?.status, textOf(result)).toBe("ok");
  return result.details.cells[0]!.text;
}

/** Pids of the processes of a kernel's group (root, live runner, checkpoints, the guard). */
function livePid(tool: ReturnType<typeof makeTool>): Promise<number> {
  return stdout(tool, "import os; print(os.getpid())").then(Number);
}

describe.skipIf(!isLinux)("checkpoints through the eval tool", () => {
  it("brings back names, values, imported modules and mutated objects exactly, as often as asked", async () => {
    const tool = makeTool({ cwd: makeTempDir("ckpt"), checkpoints: { undo: 0 } });
    const setup = await tool.execute({
      cells: [
        {
          code: [
            "import fractions, random",
            "random.seed(7)",
            "items = [1, 2, {'k': fractions.Fraction(1, 3)}]",
            "shared = items[2]",
            "big = bytearray(5_000_000)",
            "big[123] = 45",
          ].join("\n"),
        },
      ],
      checkpoint: "clean",
    });
    expect(setup.details.ok, textOf(setup)).toBe(true);
    expect(setup.details.checkpoints).toMatchObject({ taken: "clean" });
    expect(setup.details.checkpoints?.checkpoints.map((c) => c.name)).toEqual(["clean"]);
    const expected = await stdout(tool, "print(items, shared is items[2], big[123], random.random())");
    // The cell above drew a random number: the state after it differs; restore returns to before it.
    await stdout(
      tool,
      "items.append('x'); shared['k'] = 0; del big; del fractions; import json; random.random()",
    );
    for (let round = 0; round < 2; round++) {
      const restored = await tool.execute({
        restore: "clean",
        cells: [
          {
            code: "print(items, shared is items[2], big[123], random.random())\nprint('json' in dir(), 'fractions' in dir())",
          },
        ],
      });
      expect(restored.details.ok, textOf(restored)).toBe(true);
      expect(restored.details.checkpoints?.restored).toBe("clean");
      expect(restored.details.cells[0]?.text).toBe(`${expected}False True\n`);
      await stdout(tool, "items.clear()");
    }
  });

  it("undoes the last call that ran cells, one level per undo as configured", async () => {
    const tool = makeTool({ cwd: makeTempDir("undo"), checkpoints: { undo: 2 } });
    await stdout(tool, "log = ['a']");
    await stdout(tool, "log.append('b')");
    await stdout(tool, "log.append('c')");
    const first = await tool.execute({ undo: true });
    expect(first.details.ok, textOf(first)).toBe(true);
    expect(await stdout(tool, "print(log)")).toBe("['a', 'b']\n");
    // That print was a call too: undo twice goes back before it, then before `append('b')`.
    await tool.undo();
    const second = await tool.execute({ undo: true, cells: [{ code: "print(log)" }] });
    expect(second.details.cells[0]?.text).toBe("['a']\n");
  });

  it("says there is nothing to undo when automatic checkpoints are off", async () => {
    const tool = makeTool({ cwd: makeTempDir("no-undo"), checkpoints: { undo: 0 } });
    await stdout(tool, "x = 1");
    const result = await tool.execute({ undo: true, cells: [{ code: "print(x)" }] });
    expect(result.details.ok).toBe(false);
    expect(result.details.checkpoints?.error?.code).toBe("CHECKPOINT_NOT_FOUND");
    expect(result.details.cells[0]?.status).toBe("skipped");
    expect(textOf(result)).toContain("automatic checkpoints are off");
  });

  it("brings back a SIGKILLed interpreter's state from its checkpoint, and names it in the notice", async () => {
    const tool = makeTool({ cwd: makeTempDir("crash"), checkpoints: { undo: 0 } });
    await tool.execute({ cells: [{ code: "model = {'weights': list(range(5))}" }], checkpoint: "trained" });
    const before = await livePid(tool);
    // What the OOM killer does: a SIGKILL from outside, here while a cell runs.
    const died = await tool.execute({
      cells: [{ code: `import os, signal, time\nos.kill(${before}, signal.SIGKILL)\ntime.sleep(5)` }],
    });
    expect(died.details.cells[0]?.status).toBe("died");
    expect(isProcessAlive(before)).toBe(false);
    const notices = died.details.cells[0]?.notices?.join("\n") ?? "";
    expect(notices).toContain("state lost");
    expect(notices).toContain('{"restore": "trained"}');
    const next = await tool.execute({ cells: [{ code: "print('model' in dir())" }] });
    expect(next.details.cells[0]?.text).toBe("False\n");
    const back = await tool.execute({ restore: "trained", cells: [{ code: "print(model)" }] });
    expect(back.details.cells[0]?.text).toBe("{'weights': [0, 1, 2, 3, 4]}\n");
  });

  it("kills only the interpreter when a cell ignores its timeout's interrupt, so the checkpoints survive", async () => {
    const tool = makeTool({ cwd: makeTempDir("stuck"), checkpoints: { undo: 0 }, interruptGraceMs: 300 });
    await tool.execute({ cells: [{ code: "weights = [0.5]" }], checkpoint: "good" });
    const stuck = await tool.execute({
      cells: [
        { code: "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass", timeout: 1 },
      ],
    });
    expect(stuck.details.cells[0]?.status).toBe("killed");
    const notices = stuck.details.cells[0]?.notices?.join("\n") ?? "";
    expect(notices).toContain('{"restore": "good"}');
    const back = await tool.execute({ restore: "good", cells: [{ code: "print(weights)" }] });
    expect(back.details.cells[0]?.text).toBe("[0.5]\n");
  });

  it("restores the newest checkpoint by itself after a crash with restoreOnCrash", async () => {
    const tool = makeTool({ cwd: makeTempDir("auto"), checkpoints: { undo: 0, restoreOnCrash: true } });
    await tool.checkpoint("empty");
    await tool.execute({ cells: [{ code: "frame = [1, 2, 3]" }], checkpoint: "loaded" });
    const died = await tool.execute({
      cells: [{ code: "import os, signal\nframe.append(4)\nos.kill(os.getpid(), signal.SIGKILL)" }],
    });
    expect(died.details.cells[0]?.status).toBe("died");
    expect(died.details.cells[0]?.notices?.join("\n")).toContain(
      'checkpoint "loaded" was restored automatically',
    );
    expect(await stdout(tool, "print(frame)")).toBe("[1, 2, 3]\n");
  });

  it("evicts the oldest automatic checkpoints first and never drops a named one silently", async () => {
    const tool = makeTool({ cwd: makeTempDir("budget"), checkpoints: { undo: 5, maxCount: 3 } });
    await tool.checkpoint("keep");
    for (let i = 0; i < 4; i++) await stdout(tool, `step = ${i}`);
    const listed = await tool.checkpoint("also");
    // 3 at most: both named ones stay, the automatic ones were dropped oldest first.
    expect(listed.checkpoints.map((c) => c.name)).toEqual(["keep", "undo-4", "also"]);
    expect(listed.notices.some((n) => n.includes('automatic checkpoint "undo-3" dropped'))).toBe(true);
    await tool.checkpoint("third");
    const refused = await tool.checkpoint("fourth").catch((err: unknown) => err);
    expect(isEvalkitError(refused, "CHECKPOINT_FAILED")).toBe(true);
    expect((refused as Error).message).toContain("never dropped silently");
    const names = (await tool.restore("keep")).checkpoints.map((c) => c.name);
    expect(names).toEqual(["keep", "also", "third"]);
  });

  it("reports the memory each checkpoint holds, about the pages changed after it", async () => {
    const tool = makeTool({ cwd: makeTempDir("memory"), checkpoints: { undo: 0 } });
    const size = 64 * 1024 * 1024;
    await tool.execute({ cells: [{ code: `data = bytearray(b"x" * ${size})` }], checkpoint: "before" });
    const untouched = await tool.execute({ checkpoint: "probe" });
    const small =
      untouched.details.checkpoints?.checkpoints.find((c) => c.name === "before")?.privateBytes ?? -1;
    expect(small).toBeGreaterThanOrEqual(0);
    expect(small).toBeLessThan(size / 2);
    await tool.execute({ restore: "probe" });
    await stdout(tool, "del data");
    await stdout(tool, "import gc; gc.collect()");
    // "probe" shares the buffer with "before" (so neither holds it alone): drop it, then change every page.
    const dropped = await tool.execute({
      restore: "before",
      cells: [{ code: "data[:] = b'y' * len(data)" }],
    });
    expect(dropped.details.ok, textOf(dropped)).toBe(true);
    const after = await tool.execute({ checkpoint: "probe" });
    const before = after.details.checkpoints?.checkpoints.find((c) => c.name === "before");
    // The live interpreter wrote every page of the 64 MB buffer after "before": "before" keeps the old copies.
    // ("probe" was replaced, so the old pages are "before"'s alone.)
    expect(before?.privateBytes ?? 0).toBeGreaterThan(size * 0.9);
  });

  it("names what a restore cannot carry: running threads and child processes", async () => {
    const tool = makeTool({ cwd: makeTempDir("limits"), checkpoints: { undo: 0 } });
    const result = await tool.execute({
      cells: [
        {
          code: [
            "import threading, subprocess, sys",
            "stop = threading.Event()",
            "worker = threading.Thread(target=stop.wait, name='worker-1', daemon=True)",
            "worker.start()",
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])",
          ].join("\n"),
        },
      ],
      checkpoint: "busy",
    });
    const notices = result.details.checkpoints?.notices.join("\n") ?? "";
    expect(notices).toContain("worker-1");
    expect(notices).toContain("child processes are not copied");
    expect(result.details.checkpoints?.checkpoints[0]?.limits.length).toBe(2);
    await stdout(tool, "child.kill(); child.wait(); stop.set()");
  });

  it("refuses a checkpoint name that is not a plain name, naming the field", async () => {
    const tool = makeTool({ cwd: makeTempDir("names"), checkpoints: true });
    const err = await tool.execute({ checkpoint: "a\nb" }).catch((e: unknown) => e);
    expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
    expect((err as Error).message).toContain("checkpoint");
  });

  it("refuses checkpoints behind a launcher, on a Jupyter server and without the option, saying why", async () => {
    const err = (() => {
      try {
        makeTool({ launcher: ["env"], checkpoints: true });
      } catch (e) {
        return e;
      }
    })();
    expect(isEvalkitError(err, "CHECKPOINTS_UNSUPPORTED")).toBe(true);
    expect(() => makeTool({ jupyter: { url: "http://127.0.0.1:9" }, checkpoints: true })).toThrow(
      /Jupyter server/,
    );
    const plain = makeTool({ cwd: makeTempDir("off") });
    const off = await plain.execute({ checkpoint: "x" });
    expect(off.details.checkpoints?.error?.code).toBe("CHECKPOINTS_UNSUPPORTED");
  });

  it("interrupts a running cell and keeps the state and the checkpoints", async () => {
    const tool = makeTool({ cwd: makeTempDir("interrupt"), checkpoints: { undo: 1 } });
    await tool.execute({ cells: [{ code: "kept = 'yes'" }], checkpoint: "k" });
    const controller = new AbortController();
    const running = tool.execute({ cells: [{ code: "while True: pass" }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await running;
    expect(result.details.cells[0]?.status).toBe("cancelled");
    expect(await stdout(tool, "print(kept)")).toBe("yes\n");
    const listed = await tool.checkpoint("after");
    expect(listed.checkpoints.map((c) => c.name)).toContain("k");
  });

  it("forks the session into two that start from the same state and then go their own ways", async () => {
    const tool = makeTool({ cwd: makeTempDir("fork"), checkpoints: { undo: 0 } });
    await stdout(tool, "import collections\nbranch = ['start']\ncounts = collections.Counter('aab')");
    const fork = await tool.fork();
    try {
      const forkPid = Number(
        await stdout(fork as ReturnType<typeof makeTool>, "import os; print(os.getpid())"),
      );
      expect(forkPid).not.toBe(await livePid(tool));
      await stdout(fork as ReturnType<typeof makeTool>, "branch.append('fork'); counts['z'] = 9");
      await stdout(tool, "branch.append('original')");
      expect(
        await stdout(fork as ReturnType<typeof makeTool>, "print(branch, counts['a'], counts['z'])"),
      ).toBe("['start', 'fork'] 2 9\n");
      expect(await stdout(tool, "print(branch, counts['z'])")).toBe("['start', 'original'] 0\n");
      // The fork point stays a checkpoint of the original: it can go back to where the branches split.
      const back = await tool.execute({ restore: "fork-1", cells: [{ code: "print(branch)" }] });
      expect(back.details.cells[0]?.text).toBe("['start']\n");
      // An interrupt reaches the fork's runner through its relay.
      const controller = new AbortController();
      const running = fork.execute({ cells: [{ code: "while True: pass" }] }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      expect((await running).details.cells[0]?.status).toBe("cancelled");
      await fork.dispose();
      expect(await waitFor(() => !isProcessAlive(forkPid))).toBe(true);
      expect(await stdout(tool, "print(len(branch))")).toBe("1\n");
    } finally {
      await fork.dispose();
    }
  });

  it("refuses to fork without checkpoints or in the sandbox", async () => {
    const plain = makeTool({ cwd: makeTempDir("nofork") });
    const err = await plain.fork().catch((e: unknown) => e);
    expect(isEvalkitError(err, "CHECKPOINTS_UNSUPPORTED")).toBe(true);
  });

  it("leaves no process of the kernel, its root or its checkpoints after dispose", async () => {
    const tool = makeTool({ cwd: makeTempDir("dispose"), checkpoints: { undo: 1 } });
    await tool.checkpoint("one");
    await stdout(tool, "x = 1");
    const pids = await stdout(
      tool,
      "import os\npgid = os.getpgrp()\nprint(' '.join(p for p in os.listdir('/proc') if p.isdigit() and os.path.exists('/proc/%s/stat' % p) and open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[2] == str(pgid)))",
    );
    const group = pids.trim().split(" ").map(Number);
    expect(group.length).toBeGreaterThanOrEqual(4); // root, live runner, two checkpoints (and the guard)
    await tool.dispose();
    expect(await waitFor(() => group.every((pid) => !isProcessAlive(pid)))).toBe(true);
  });
});

describe.skipIf(!isLinux || sandboxSkipReason !== "")(
  `checkpoints in the sandbox ${sandboxSkipReason}`,
  () => {
    it("takes, restores and survives a crash inside bubblewrap", async () => {
      const tool = makeTool({ cwd: makeTempDir("ckpt-sandbox"), sandbox: true, checkpoints: { undo: 1 } });
      await tool.execute({ cells: [{ code: "state = {'n': 1}" }], checkpoint: "a" });
      await stdout(tool, "state['n'] = 2");
      expect(await stdout(tool, "print(state)")).toBe("{'n': 2}\n");
      const back = await tool.execute({ restore: "a", cells: [{ code: "print(state)" }] });
      expect(back.details.cells[0]?.text, textOf(back)).toBe("{'n': 1}\n");
      const died = await tool.execute({
        cells: [{ code: "import os, signal; os.kill(os.getpid(), signal.SIGKILL)" }],
      });
      expect(died.details.cells[0]?.status).toBe("died");
      const again = await tool.execute({ restore: "a", cells: [{ code: "print(state)" }] });
      expect(again.details.cells[0]?.text, textOf(again)).toBe("{'n': 1}\n");
    });
  },
);
