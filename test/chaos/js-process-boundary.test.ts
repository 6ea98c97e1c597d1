// From inside a JS cell, as a hostile user would: children with inherited stdio, spawned process trees, memory,
// and the host's own channels (`exec --json` stdout, the MCP stream). Nothing may leak into the host.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JsKernel } from "../../src/kernel/js/js-kernel.js";
import { createDefaultKernel } from "../../src/session/default-kernels.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { buildCli, callEval, closeServers, ROOT, startServer, textOf } from "../mcp/mcp-helpers.js";

const isLinux = process.platform === "linux";
const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-js-boundary-"));
const managers: SessionManager[] = [];
function createManager(): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON });
  managers.push(manager);
  return manager;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});
afterAll(async () => {
  await closeServers();
  rmSync(cwd, { recursive: true, force: true });
});

// One child in the kernel's group and one in a session of its own (detached), both sleeping for minutes.
const SPAWN_TREE =
  "const { spawn } = require('node:child_process');\n" +
  "const attached = spawn('sleep', ['300'], { stdio: 'ignore' });\n" +
  "const detached = spawn('sleep', ['301'], { stdio: 'ignore', detached: true });\n" +
  "detached.unref();\n" +
  "JSON.stringify([attached.pid, detached.pid])";

function pidsOf(outcome: SessionCellOutcome): number[] {
  const result = outcome.outputs.find((o) => o.type === "result");
  const text = result?.type === "result" ? String(result.data["text/plain"]) : "[]";
  const pids = JSON.parse(JSON.parse(text.replace(/^'|'$/g, '"'))) as number[];
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid} runs`).toBe(true);
  return pids;
}

async function expectGone(pids: number[]): Promise<void> {
  const gone = await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), 5000);
  expect(gone, `still alive: ${pids.filter(isProcessAlive).join(", ")} (of ${pids.join(", ")})`).toBe(true);
}

describe.skipIf(!isLinux)("processes started by JS cells", () => {
  it("are gone once a timeout kills the kernel", async () => {
    const manager = createManager();
    const pids = pidsOf(await manager.run({ cwd, language: "js", code: SPAWN_TREE }));
    const outcome = await manager.run({
      cwd,
      language: "js",
      code: "await null; for (;;) {}",
      timeoutSec: 1,
    });
    expect(outcome.status).toBe("killed");
    await expectGone(pids);
  });

  it("are gone after a reset", async () => {
    const manager = createManager();
    const pids = pidsOf(await manager.run({ cwd, language: "js", code: SPAWN_TREE }));
    const outcome = await manager.run({ cwd, language: "js", code: "1", reset: true });
    expect(outcome.status).toBe("ok");
    await expectGone(pids);
  });

  it("are gone after dispose()", async () => {
    const manager = createManager();
    const pids = pidsOf(await manager.run({ cwd, language: "js", code: SPAWN_TREE }));
    await manager.dispose();
    await expectGone(pids);
  });

  it("are gone when the host process is killed outright", async () => {
    const script =
      "import { JsKernel } from './src/kernel/js/js-kernel.ts';\n" +
      "const kernel = new JsKernel();\n" +
      `const outcome = await kernel.execute(${JSON.stringify(SPAWN_TREE)});\n` +
      "console.log(outcome.outputs[0].data['text/plain']);\n" +
      "setInterval(() => {}, 1000);\n";
    const host = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      host.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(text.trim());
      });
      host.once("exit", () => reject(new Error(`the host exited early: ${text}`)));
    });
    const pids = JSON.parse(JSON.parse(line.replace(/^'|'$/g, '"'))) as number[];
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(true);
    host.kill("SIGKILL");
    await expectGone(pids);
  }, 60_000);
});

describe("a JS kernel out of memory", () => {
  it.skipIf(!isLinux)(
    "is reported as died with an out-of-memory cause, and the next call gets a fresh kernel",
    async () => {
      const manager = new SessionManager({
        python: TEST_PYTHON,
        createKernel: (spec) =>
          spec.language === "js"
            ? new JsKernel({ cwd: spec.cwd, env: spec.env, memoryMb: 400 })
            : createDefaultKernel(spec),
      });
      managers.push(manager);
      await manager.run({ cwd, language: "js", code: "globalThis.kept = 1" });
      const outcome = await manager.run({
        cwd,
        language: "js",
        code: "const hog = []; for (let i = 0; i < 60; i++) { hog.push(Buffer.alloc(100 << 20, 1)); await null }",
        timeoutSec: 60,
      });
      expect(outcome.status).toBe("died");
      expect(outcome.notices.join("\n")).toMatch(/out of memory: .*over its memory limit 400 MB/);
      const next = await manager.run({ cwd, language: "js", code: "typeof kept" });
      expect(next.status).toBe("ok");
      expect(next.notices[0]).toMatch(/^kernel restarted: /);
    },
    90_000,
  );
});

describe("the host's own channels", () => {
  beforeAll(buildCli, 120_000);

  it("exec --json prints one JSON object while a JS cell's child writes to inherited stdio", () => {
    const cell =
      "require('node:child_process').spawnSync('sh', ['-c', 'echo child-out; echo child-err >&2'], { stdio: 'inherit' });\n" +
      "require('node:fs').writeSync(1, 'raw\\n'); 'done'";
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "bin", "evalkit.js"), "exec", "--lang", "js", "--json", "-c", cell],
      { cwd, encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
    const details = JSON.parse(run.stdout) as { cells: { text: string }[] };
    expect(details.cells[0]?.text).toContain("child-out");
    expect(details.cells[0]?.text).toContain("child-err");
    expect(details.cells[0]?.text).toContain("raw");
  });

  it("keeps the MCP stream intact while a JS cell's child writes to inherited stdio", async () => {
    const server = await startServer();
    const noisy = await callEval(server.client, [
      {
        language: "js",
        code: "require('node:child_process').spawnSync('sh', ['-c', 'echo {\"jsonrpc\":\"2.0\"} ; echo oops >&2'], { stdio: 'inherit' }); 41 + 1",
      },
    ]);
    expect(noisy.isError).toBe(false);
    expect(textOf(noisy)).toContain("{jsonrpc:2.0}");
    expect(textOf(noisy)).toContain("42");
    const after = await callEval(server.client, [{ language: "js", code: "'still talking'" }]);
    expect(textOf(after)).toContain("still talking");
    expect(server.stderr()).not.toContain("oops");
  }, 60_000);
});
