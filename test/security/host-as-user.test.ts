// The host's defences hold for an unprivileged host too: run as `nobody` (root drops to it with setpriv; another
// user runs as itself), `evalkit exec` survives deep metadata, is not frozen by SIGSTOP, keeps output after a forged
// stream marker, ignores a JS cell's forged done frame (sandboxed too), a library host turns an unencodable bridge
// reply into BridgeError, and prefixed secret names stay out of the kernel.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../helpers/build.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { CLI_PARTS, makeReadableCopy } from "../helpers/unprivileged-host.js";

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const asUser = (argv: string[]): string[] =>
  isRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...argv] : argv;

/** The interpreter the user can run (a root-only pyenv is not), or undefined. */
function usablePython(): string | undefined {
  for (const python of [TEST_PYTHON, "/usr/bin/python3"]) {
    const [command, ...args] = asUser(["sh", "-c", 'test -x "$0" && "$0" -c pass', python]) as [
      string,
      ...string[],
    ];
    if (spawnSync(command, args, { stdio: "ignore" }).status === 0) return python;
  }
  return undefined;
}

// As root, the host runs from a copy `nobody` can read: the checkout may be private (a clone in /root, mode 700).
const isLinux = process.platform === "linux";
if (isRoot && isLinux) await ensureBuilt();
const copy = isRoot && isLinux ? makeReadableCopy(CLI_PARTS) : undefined;
const CLI_ROOT = copy?.ok ? copy.dir : ROOT;

function userSkipReason(): string | undefined {
  if (!isLinux) return "needs Linux";
  if (copy?.ok === false) return copy.reason;
  const files = [path.join(CLI_ROOT, "bin", "evalkit.js"), path.join(CLI_ROOT, "python")];
  const readable = `for (const f of ${JSON.stringify(files)}) require("fs").accessSync(f, require("fs").constants.R_OK)`;
  const [command, ...args] = asUser([process.execPath, "-e", readable]) as [string, ...string[]];
  if (spawnSync(command, args, { stdio: "ignore" }).status !== 0)
    return `uid ${NOBODY} cannot read ${CLI_ROOT} or setpriv is missing`;
  return usablePython() === undefined ? `uid ${NOBODY} can run no Python here` : undefined;
}

const skipReason = userSkipReason();
requireOrExplainSkip("the host's defences as an unprivileged user", skipReason);
const work = mkdtempSync(path.join(tmpdir(), "evalkit-host-user-"));

beforeAll(async () => {
  if (isRoot) chownSync(work, NOBODY, NOBODY);
  if (skipReason === undefined) await ensureBuilt();
}, 180_000);
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (copy?.ok) copy.cleanup();
});

/** Runs a command as the user; a host frozen for good is killed at `limitMs`. */
function runAsUser(
  argv: string[],
  limitMs: number,
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const [command, ...args] = asUser(argv) as [string, ...string[]];
  const childEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    EVALKIT_HOME: path.join(work, "home"),
    EVALKIT_PYTHON: usablePython() ?? "",
    ...env,
  };
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: work, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const cli = (args: string[]) => [
  process.execPath,
  path.join(CLI_ROOT, "bin", "evalkit.js"),
  "exec",
  "--json",
  ...args,
];
const cellsOf = (stdout: string) =>
  (JSON.parse(stdout) as { cells: { status: string; text: string }[] }).cells;

describe.skipIf(skipReason !== undefined)("the host's defences as an unprivileged user", () => {
  it("survives display metadata nested 8,000 levels deep", async () => {
    const code = `import sys\nsys.setrecursionlimit(100000)\nd = {}\nn = d\nfor _ in range(8000):\n    n["a"] = {}\n    n = n["a"]\ndisplay({"text/plain": "x"}, metadata=d, raw=True)\nprint("after")`;
    const run = await runAsUser(cli(["-c", code]), 30_000);
    expect(run.stderr).not.toContain("Maximum call stack");
    expect(cellsOf(run.stdout)[0]?.text).toContain("after");
  }, 40_000);

  it("is not frozen by a cell's SIGSTOP: the cell times out", async () => {
    const code = "import os, signal, time\nos.kill(os.getppid(), signal.SIGSTOP)\ntime.sleep(60)";
    const run = await runAsUser(cli(["--timeout", "3", "-c", code]), 25_000);
    expect(run.status).toBe(1);
    expect(cellsOf(run.stdout)[0]?.status).toBe("timeout");
  }, 30_000);

  it("keeps a JS cell's output after a forged stream marker", async () => {
    const code = `const nonce = process.argv.find((arg) => /^[0-9a-f]{16}$/.test(arg)) ?? process.argv[2];
process.stdout.write("\\x1b]evalkit-sync;" + nonce + ";999999999\\x07");
console.log("after the forged marker");`;
    const run = await runAsUser(cli(["--lang", "js", "-c", code]), 30_000);
    expect(cellsOf(run.stdout)[0]?.text).toContain("after the forged marker");
  }, 40_000);

  it.each([[[]], [["--sandbox"]]])(
    "ignores a done frame a JS cell forges on fd 3 (flags %j): the real cell goes on",
    async (flags) => {
      const code = [
        'const fs = require("node:fs");',
        'const path = require("node:path");',
        'const { state } = require(path.join(path.dirname(process.argv[1]), "cell-state.cjs"));',
        'const done = { type: "done", id: state.current.id, status: "ok", executionCount: 99, cancelled: false };',
        'fs.writeSync(3, JSON.stringify(done) + "\\n");',
        "await new Promise((r) => setTimeout(r, 300));",
        'console.log("the real cell went on");',
      ].join("\n");
      // A project directory: the sandbox refuses the home directory (HOME is `work` here) as its cwd.
      const project = path.join(work, "project");
      mkdirSync(project, { recursive: true });
      if (isRoot) chownSync(project, NOBODY, NOBODY);
      const run = await runAsUser(cli([...flags, "--cwd", project, "--lang", "js", "-c", code]), 30_000);
      const text = cellsOf(run.stdout)[0]?.text ?? "";
      expect(text).toContain("the real cell went on");
      expect(text).toContain('ignored a "done" frame');
    },
    40_000,
  );

  it("turns a BigInt bridge reply into BridgeError and keeps prefixed secret names from the kernel", async () => {
    const script = path.join(work, "host.mjs");
    writeFileSync(
      script,
      `import { createEvalTool } from ${JSON.stringify(path.join(CLI_ROOT, "dist", "index.js"))};
const tool = createEvalTool({ python: process.env.EVALKIT_PYTHON, js: false, handlers: { tools: { big: () => 10n } } });
const code = "import os\\ntry:\\n    tool.big()\\nexcept Exception as e:\\n    print(type(e).__name__)\\nprint(sorted(k for k in os.environ if 'DB_PASS' in k or 'GITHUB_PAT' in k))";
const result = await tool.execute({ cells: [{ code }] });
console.log(JSON.stringify(result.details.cells[0].text));
await tool.dispose();`,
    );
    if (isRoot) chownSync(script, NOBODY, NOBODY);
    const run = await runAsUser([process.execPath, script], 30_000, {
      EVALKIT_DB_PASS: "user-db-pass-Kq19",
      EVALKIT_GITHUB_PAT: "ghp_user_pat_Zz0099887766",
    });
    expect(JSON.parse(run.stdout.trim())).toBe("BridgeError\n[]\n");
  }, 40_000);
});
