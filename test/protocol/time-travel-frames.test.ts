// The Python runner's time-travel frames (docs/protocol.md, Time travel) at the raw NDJSON level, against the schema.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildPythonLaunch } from "../../src/kernel/python/python-command.js";
import { buildRunnerBundle } from "../../src/kernel/python/runner-bundle.js";
import { TEST_PYTHON } from "../helpers/interpreters.js";
import { RawRunner, spawnGroupLeader } from "./raw-runner.js";

const cwd = mkdtempSync(join(tmpdir(), "evalkit-tt-frames-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function startRunner(): RawRunner {
  const launch = buildPythonLaunch({ python: TEST_PYTHON, cwd, codeCacheDir: false, checkpoints: true });
  const child = spawnGroupLeader(launch.command, launch.args, ["pipe", "pipe", "pipe"], launch.env, cwd);
  child.stderr?.resume();
  child.stdin?.on("error", () => undefined);
  child.stdin?.write(buildRunnerBundle(launch.runnerConfig));
  return new RawRunner({
    child,
    input: child.stdin as NonNullable<typeof child.stdin>,
    frames: child.stdout as NonNullable<typeof child.stdout>,
  });
}

describe.skipIf(process.platform !== "linux")("time-travel frames of the Python runner", () => {
  it("answers checkpoint, restore, drop and checkpoint_info, and reports the runner's end, all as the schema says", async () => {
    const runner = startRunner();
    try {
      const ready = await runner.waitForFrame((f) => f.type === "ready");
      expect(ready).toMatchObject({ checkpoints: true, checkpointToken: expect.any(String) });
      const reply = (id: string) => runner.waitForFrame((f) => f.type === "checkpoint_reply" && f.id === id);
      runner.send({ type: "checkpoint", id: "c1", name: "a" });
      expect(await reply("c1")).toMatchObject({ ok: true, name: "a", limits: [] });
      runner.send({ type: "checkpoint_info", id: "c2", names: ["a", "none"] });
      const info = await reply("c2");
      expect((info.checkpoints as { name: string | null }[]).map((c) => c.name)).toEqual(["a", "none", null]);
      runner.send({ type: "restore", id: "c3", name: "a" });
      const restored = await reply("c3");
      expect(restored).toMatchObject({ ok: true, name: "a" });
      process.kill(restored.livePid as number, "SIGKILL");
      await runner.waitForFrame((f) => f.type === "runner_exit" && f.pid === restored.livePid);
      runner.send({ type: "restore", id: "c4", name: null });
      expect(await reply("c4")).toMatchObject({ ok: true, name: null });
      runner.send({ type: "drop", id: "c5", name: "a", wait: false });
      expect(await reply("c5")).toMatchObject({ ok: true });
      runner.send({ type: "restore", id: "c6", name: "a" });
      expect(await reply("c6")).toMatchObject({ ok: false, missing: true });
      expect(runner.violations).toEqual([]);
    } finally {
      await runner.kill();
    }
  });
});
