// The REPL's kernels are one session of a SessionManager: the launcher environment of `exec --launcher`, the
// session's watchdog for --timeout, restarts, completeness, and both languages held by the manager.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ReplKernelConfig, ReplKernels } from "../../../src/cli/repl/kernels.js";
import type { CellLanguage } from "../../../src/contracts/cell-result.js";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { createDefaultResolver } from "../../../src/session/default-kernels.js";
import type { SessionCellOutcome } from "../../../src/session/session-types.js";
import { isProcessAlive, waitFor } from "../../helpers/processes.js";
import { TEST_PYTHON } from "../../helpers/python.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-repl-kernels-")));
const opened: ReplKernels[] = [];
const savedSock = process.env.SSH_AUTH_SOCK;

afterEach(async () => {
  await Promise.all(opened.splice(0).map((kernels) => kernels.shutdown()));
  if (savedSock === undefined) delete process.env.SSH_AUTH_SOCK;
  else process.env.SSH_AUTH_SOCK = savedSock;
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function open(config: Partial<ReplKernelConfig> = {}): ReplKernels {
  const kernels = new ReplKernels({ cwd, python: TEST_PYTHON, ...config });
  opened.push(kernels);
  return kernels;
}

function run(
  kernels: ReplKernels,
  code: string,
  language: CellLanguage = "py",
  signal = new AbortController().signal,
): Promise<SessionCellOutcome> {
  return kernels.run(code, language, {
    signal,
    onOutput: () => undefined,
    onInputRequest: () => Promise.reject(new Error("no input in this test")),
  });
}

async function resultOf(kernels: ReplKernels, code: string, language: CellLanguage = "py"): Promise<unknown> {
  const outcome = await run(kernels, code, language);
  const result = outcome.outputs.find((output) => output.type === "result");
  return result && result.type === "result" ? result.data["text/plain"] : outcome;
}

describe("REPL kernels", () => {
  it("hands a launcher the same environment as exec --launcher, SSH_AUTH_SOCK included", async () => {
    process.env.SSH_AUTH_SOCK = "/tmp/evalkit-test-agent.sock";
    const kernels = open({ launcher: ["env"] });
    const description = await kernels.startPython();
    expect(description.reason).toBe("run through env");
    const seen = await resultOf(kernels, "import os\nos.environ.get('SSH_AUTH_SOCK')");
    expect(seen).toBe("'/tmp/evalkit-test-agent.sock'");
    const execEnv = (await createDefaultResolver(TEST_PYTHON, {}, ["env"])(cwd)).env;
    expect(execEnv.SSH_AUTH_SOCK).toBe("/tmp/evalkit-test-agent.sock");
  });

  it("keeps the agent socket from a local kernel, as exec does", async () => {
    process.env.SSH_AUTH_SOCK = "/tmp/evalkit-test-agent.sock";
    const kernels = open();
    const description = await kernels.startPython();
    expect(description.reason).not.toBe("");
    expect(await resultOf(kernels, "import os\nstr(os.environ.get('SSH_AUTH_SOCK'))")).toBe("'None'");
    const execEnv = (await createDefaultResolver(TEST_PYTHON, {})(cwd)).env;
    expect(execEnv.SSH_AUTH_SOCK).toBeUndefined();
  });

  it("runs Python and JavaScript cells as one session of its manager, in the REPL's directory", async () => {
    const kernels = open();
    expect(await resultOf(kernels, "import os\nos.getcwd()")).toBe(`'${cwd}'`);
    expect(await resultOf(kernels, "process.cwd()", "js")).toBe(`'${cwd}'`);
    const held = kernels.manager.list();
    expect(held.map((kernel) => kernel.language).sort()).toEqual(["js", "py"]);
    expect(new Set(held.map((kernel) => `${kernel.sessionId} ${kernel.cwd}`)).size).toBe(1);
  });

  it("describes the Python it started for the banner: executable, version, reason and pid", async () => {
    const kernels = open();
    const description = await kernels.startPython();
    const [pid, version] = String(
      await resultOf(kernels, "import os, platform\nf'{os.getpid()} {platform.python_version()}'"),
    )
      .replace(/'/g, "")
      .split(" ");
    expect(description.pid).toBe(Number(pid));
    expect(description.version).toBe(version);
    expect(description.executable).toMatch(/python/);
    expect(description.reason).not.toBe("");
  });

  it("interrupts a cell at --timeout with the session's watchdog and keeps the kernel's variables", async () => {
    const kernels = open({ timeoutSec: 1 });
    await run(kernels, "kept = 41");
    const outcome = await run(kernels, "import time\ntime.sleep(30)");
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.ename).toBe("KeyboardInterrupt");
    expect(outcome.durationMs).toBeLessThan(15_000);
    expect(await resultOf(kernels, "kept + 1")).toBe("42");
  }, 30_000);

  it("interrupts a cell when its signal aborts (Ctrl-C) and keeps the kernel's variables", async () => {
    const kernels = open();
    await run(kernels, "kept = 1");
    const controller = new AbortController();
    const printed: KernelOutput[] = [];
    const running = kernels.run("import time\nprint('go', flush=True)\ntime.sleep(30)", "py", {
      signal: controller.signal,
      onOutput: (output) => printed.push(output),
      onInputRequest: () => Promise.reject(new Error("no input")),
    });
    expect(await waitFor(() => printed.length > 0, 20_000)).toBe(true);
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(await resultOf(kernels, "kept")).toBe("1");
  }, 40_000);

  it("restarts Python into a fresh interpreter and counts cells from 1 again", async () => {
    const kernels = open();
    const first = await kernels.startPython();
    await run(kernels, "kept = 1");
    expect(kernels.nextCount.py).toBeGreaterThan(1);
    const second = await kernels.restart("py");
    expect(second?.pid).toBeDefined();
    expect(second?.pid).not.toBe(first.pid);
    expect(await waitFor(() => !isProcessAlive(first.pid ?? 0))).toBe(true);
    expect(kernels.nextCount.py).toBe(1);
    expect((await run(kernels, "kept")).error?.ename).toBe("NameError");
    expect(await kernels.isAlive("py")).toBe(true);
  });

  it("replaces a kernel killed from outside between cells and says so on the next cell", async () => {
    const kernels = open();
    const { pid } = await kernels.startPython();
    process.kill(pid ?? 0, "SIGKILL");
    expect(await waitFor(() => !isProcessAlive(pid ?? 0))).toBe(true);
    // The host learns of the death when the kernel's process tree is gone.
    let isAlive = true;
    for (let i = 0; i < 100 && isAlive; i += 1) {
      isAlive = await kernels.isAlive("py");
      if (isAlive) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(isAlive).toBe(false);
    const outcome = await run(kernels, "1 + 1");
    expect(outcome.status).toBe("ok");
    expect(outcome.notices.join("\n")).toMatch(/kernel restarted: .*state was lost/);
    expect(await kernels.isAlive("py")).toBe(true);
  });

  it("asks the Python kernel whether a cell is whole, and acorn for JavaScript", async () => {
    const kernels = open();
    // No kernel yet: nothing to ask, so the line runs as typed.
    expect(await kernels.checkComplete("py", "for i in range(3):")).toEqual({
      status: "complete",
      indent: "",
    });
    await kernels.startPython();
    expect(await kernels.checkComplete("py", "for i in range(3):")).toEqual({
      status: "incomplete",
      indent: "    ",
    });
    expect((await kernels.checkComplete("js", "function f() {")).status).toBe("incomplete");
    expect((await kernels.checkComplete("js", "f()")).status).toBe("complete");
  });

  it("says checkpoints are off without --checkpoints", async () => {
    const kernels = open();
    await expect(kernels.withCheckpoints(async () => "never")).rejects.toMatchObject({
      code: "CHECKPOINTS_UNSUPPORTED",
      message: expect.stringContaining("--checkpoints"),
    });
  });
});
