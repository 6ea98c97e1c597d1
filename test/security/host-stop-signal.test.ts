// Unsandboxed, a cell runs as the host's user and can send it SIGSTOP: the host would be frozen with every timeout
// it armed. The kernel's watchdog (the Python runner's guard, the JS kernel's subreaper parent) lives outside the
// host and resumes it, so the cell's timeout still fires and `evalkit exec` and `evalkit mcp` answer.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  callEval,
  closeServers,
  ROOT,
  startServer,
  TEST_PYTHON,
  textOf,
} from "../mcp/mcp-helpers.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-stop-"));
beforeAll(async () => {
  await buildCli();
}, 180_000);
afterEach(async () => {
  await closeServers();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PY_STOP_HOST = "import os, signal, time\nos.kill(os.getppid(), signal.SIGSTOP)\ntime.sleep(60)";
/**
 * The JS kernel's parent is its subreaper parent: the cell climbs one more level to the host, and signals it through
 * a child process (the runner refuses `process.kill` of the host itself).
 */
const JS_STOP_HOST = `const fs = require("node:fs");
const parentOf = (pid) => { const stat = fs.readFileSync("/proc/" + pid + "/stat", "latin1"); return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]); };
const host = parentOf(process.ppid);
require("node:child_process").spawnSync("kill", ["-STOP", String(host)]);
await new Promise((resolve) => setTimeout(resolve, 60000));`;

/** Runs `evalkit exec`; a host frozen for good is killed at `limitMs` (SIGKILL works on a stopped process). */
function runExec(
  args: string[],
  limitMs: number,
): Promise<{ status: number | null; stdout: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), "exec", ...args], {
      cwd: work,
      env: { ...process.env, EVALKIT_HOME: work },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, ms: Date.now() - started });
    });
  });
}

describe("a cell that stops its host", () => {
  it("cannot freeze `evalkit exec` with a Python cell: the cell times out and the command ends", async () => {
    const run = await runExec(
      ["--json", "--timeout", "3", "--python", TEST_PYTHON, "-c", PY_STOP_HOST],
      25_000,
    );
    expect(run.status).toBe(1);
    const details = JSON.parse(run.stdout) as { cells: { status: string }[] };
    expect(details.cells[0]?.status).toBe("timeout");
  }, 30_000);

  it("cannot freeze `evalkit exec` with a JS cell", async () => {
    const run = await runExec(["--json", "--timeout", "3", "--lang", "js", "-c", JS_STOP_HOST], 25_000);
    expect(run.status).toBe(1);
    const details = JSON.parse(run.stdout) as { cells: { status: string }[] };
    expect(details.cells[0]?.status).toBe("timeout");
  }, 30_000);

  it("cannot freeze `evalkit mcp`: the call ends in its timeout and the server answers the next one", async () => {
    const server = await startServer();
    const first = await callEval(server.client, [{ code: PY_STOP_HOST, timeout: 3 }], { timeout: 25_000 });
    expect(textOf(first)).toMatch(/timed out|timeout/i);
    const second = await callEval(server.client, [{ code: "print(6 * 7)" }], { timeout: 25_000 });
    expect(textOf(second)).toContain("42");
  }, 60_000);
});
