// `evalkit repl` with piped input runs its cells through the session layer: --timeout read by exec's rule and
// enforced by the session's watchdog, a kernel that died named and replaced, :restart, and no process left behind.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../../helpers/build.js";
import { isProcessAlive } from "../../helpers/processes.js";
import { TEST_PYTHON } from "../../helpers/python.js";

const home = mkdtempSync(path.join(tmpdir(), "evalkit-repl-session-"));

function runRepl(args: string[], input: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), "repl", ...args], {
      env: { ...process.env, NO_COLOR: "1", EVALKIT_HOME: home },
      cwd: home,
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
    child.stdin.end(input);
  });
}

describe("evalkit repl through the session layer", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 150_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("reads --timeout 0 as exec does (one second) and the session's watchdog interrupts the cell, keeping its state", async () => {
    const input = ["kept = 41", "import time; time.sleep(20)", "kept + 1", ""].join("\n");
    const startedAt = Date.now();
    const { code, out } = await runRepl(["--python", TEST_PYTHON, "--timeout", "0"], input);
    expect(code).toBe(0);
    expect(out).toMatch(/KeyboardInterrupt\n\[timeout\] the cell ran past its time limit/);
    expect(out).toMatch(/Out\[3\]: 42/);
    // The tool's own words for the ending are not repeated to a person.
    expect(out).not.toContain("eval cell");
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 30_000);

  it("names how a kernel died, starts a fresh one at once, and restarts on :restart", async () => {
    const input = [
      "import os; first = os.getpid(); print('pid', first)",
      "os._exit(3)",
      "first",
      "import os; print('pid', os.getpid())",
      ":restart",
      "import os; print('pid', os.getpid())",
      "",
    ].join("\n");
    const { code, out } = await runRepl(["--python", TEST_PYTHON], input);
    expect(code).toBe(0);
    expect(out).toContain("[died] the kernel process exited while the cell ran");
    expect(out).toContain("exit code 3");
    expect(out).toMatch(
      /\[note\] started a fresh kernel \(Python \d+\.\d+\.\d+, pid \d+\); earlier variables are gone/,
    );
    expect(out).toContain("NameError: name 'first' is not defined");
    const pids = [...out.matchAll(/^pid (\d+)$/gm)].map((match) => Number(match[1]));
    expect(pids).toHaveLength(3);
    expect(new Set(pids).size).toBe(3);
    // Every kernel the REPL started is gone once it exits.
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  }, 60_000);
});
