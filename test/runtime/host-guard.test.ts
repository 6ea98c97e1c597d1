// The host's one guard: an idle Python kernel is one process with a short `ps` line, and every kernel's tree (a
// cell stuck in C code, a double-forked daemon) ends when the host is SIGKILLed, for a host with 100 kernels too.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { JsKernel } from "../../src/kernel/js/js-kernel.js";
import { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import { HOST_GUARD_SCRIPT, hostGuardPid } from "../../src/runtime/host-guard.js";
import { findProcesses, isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { requireOrExplainSkip } from "../helpers/required.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const isLinux = process.platform === "linux";
const strays: number[] = [];

afterAll(() => {
  for (const pid of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
});

/** The pids of a process's children (every thread's). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${task}/children`, "latin1").trim();
    if (text !== "") found.push(...text.split(" ").map(Number));
  }
  return found;
}

function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, -1);
}

/** Starts a fixture host under tsx and collects its stdout. */
function startHost(script: string, ...args: string[]): { host: ChildProcess; out: () => string } {
  return startHostWith(TEST_PYTHON, script, ...args);
}

/** The same, with the kernels' interpreter given. */
function startHostWith(
  python: string,
  script: string,
  ...args: string[]
): { host: ChildProcess; out: () => string } {
  const host = spawn(process.execPath, ["--import", "tsx", fixture(script), python, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  host.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { host, out: () => out };
}

const numbersAfter = (text: string, word: string): number[] =>
  (new RegExp(`^${word} ([\\d ]+)$`, "m").exec(text)?.[1] ?? "")
    .trim()
    .split(" ")
    .filter(Boolean)
    .map(Number);

describe("the host guard", () => {
  requireOrExplainSkip("the host guard (Linux /proc)", isLinux ? undefined : "the host guard is Linux only");

  it.skipIf(!isLinux)(
    "runs an idle Python kernel as one process, with one guard for all the host's kernels",
    async () => {
      const kernels = [0, 1, 2].map(() => new PythonKernel({ python: TEST_PYTHON }));
      try {
        await Promise.all(kernels.map((kernel) => kernel.start()));
        for (const kernel of kernels) {
          await kernel.execute("1+1");
          expect(childrenOf(kernel.info?.pid ?? 0)).toEqual([]);
        }
        const guard = hostGuardPid();
        expect(guard).toBeDefined();
        expect(commandLine(guard ?? 0)).toContain(HOST_GUARD_SCRIPT);
        expect(findProcesses("evalkit-host-guard", ` ${process.pid}`)).toEqual([guard]);
        // It outlives the kernel that started it: each kernel's end (its tree, its tag) spares the guard.
        await Promise.all(kernels.map((kernel) => kernel.shutdown()));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(isProcessAlive(guard ?? 0)).toBe(true);
        expect(hostGuardPid()).toBe(guard);
      } finally {
        await Promise.all(kernels.map((kernel) => kernel.shutdown()));
      }
    },
    60_000,
  );

  it.skipIf(!isLinux)(
    "leaves a kernel behind a launcher its own guard, since the host's guard cannot see a remote tree",
    async () => {
      const kernel = new PythonKernel({ python: TEST_PYTHON, launcher: ["env"] });
      try {
        await kernel.start();
        await kernel.execute("1+1");
        const guards = childrenOf(kernel.info?.pid ?? 0).filter((pid) =>
          commandLine(pid).some((arg) => arg.includes("<evalkit guard>")),
        );
        expect(guards).toHaveLength(1);
      } finally {
        await kernel.shutdown();
      }
    },
    60_000,
  );

  it.skipIf(!isLinux)(
    "shows a kernel in ps as a short command line that says what it is, while cells see sys.argv ['-c']",
    async () => {
      const kernel = new PythonKernel({ python: TEST_PYTHON });
      try {
        await kernel.start();
        const argv = commandLine(kernel.info?.pid ?? 0);
        expect(argv.join(" ").length).toBeLessThan(200);
        expect(argv.slice(-2)).toEqual(["evalkit-kernel", "python"]);
        const outcome = await kernel.execute("import sys; print(sys.argv)");
        const text = outcome.outputs.map((output) => ("text" in output ? output.text : "")).join("");
        expect(text).toBe("['-c']\n");
      } finally {
        await kernel.shutdown();
      }
    },
    60_000,
  );

  it.skipIf(!isLinux)(
    "shows a JS kernel's node in ps as `evalkit-kernel js`",
    async () => {
      const kernel = new JsKernel();
      try {
        const outcome = await kernel.execute("process.pid");
        const result = outcome.outputs.find((output) => output.type === "result");
        const pid = Number(result?.type === "result" ? result.data["text/plain"] : 0);
        expect(commandLine(pid).filter(Boolean)).toEqual(["evalkit-kernel js"]);
      } finally {
        await kernel.shutdown();
      }
    },
    60_000,
  );

  it.skipIf(!isLinux)(
    "ends every kernel, a child of a cell stuck in C code and a double-forked daemon when the host is SIGKILLed, after ignoring SIGINT and SIGTERM",
    async () => {
      const { host, out } = startHost("host-guard-script.ts", "3");
      expect(await waitFor(() => /^BUSY \d+ \d+$/m.test(out()), 60_000)).toBe(true);
      const [guard = 0] = numbersAfter(out(), "GUARD");
      const runners = numbersAfter(out(), "RUNNERS");
      const [daemon = 0] = numbersAfter(out(), "DAEMON");
      const [, busyChild = 0] = numbersAfter(out(), "BUSY");
      const all = [guard, ...runners, daemon, busyChild];
      strays.push(...all);
      expect(runners).toHaveLength(3);
      expect(all.every((pid) => pid > 1 && isProcessAlive(pid))).toBe(true);
      // The signals a terminal's Ctrl-C or a cell's group kill would send: the guard stays.
      process.kill(-guard, "SIGINT");
      process.kill(-guard, "SIGTERM");
      process.kill(-guard, "SIGHUP");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(isProcessAlive(guard)).toBe(true);
      host.kill("SIGKILL");
      const started = Date.now();
      expect(await waitFor(() => all.every((pid) => !isProcessAlive(pid)), 20_000)).toBe(true);
      process.stdout.write(`all gone ${Date.now() - started} ms after the host was killed\n`);
    },
    90_000,
  );

  it.skipIf(!isLinux)(
    "starts a new guard that knows every live kernel when the old one was killed, and it ends them with the host",
    async () => {
      const { host, out } = startHost("host-guard-script.ts", "2", "kill-guard");
      expect(await waitFor(() => /^BUSY \d+ \d+$/m.test(out()), 60_000)).toBe(true);
      const [killed = 0] = numbersAfter(out(), "KILLED");
      const [guard = 0] = numbersAfter(out(), "GUARD");
      const runners = numbersAfter(out(), "RUNNERS");
      const [, busyChild = 0] = numbersAfter(out(), "BUSY");
      const all = [guard, ...runners, busyChild];
      strays.push(...all);
      expect(guard).not.toBe(killed);
      expect(runners).toHaveLength(3); // two before the old guard died, one after
      expect(all.every((pid) => pid > 1 && isProcessAlive(pid))).toBe(true);
      host.kill("SIGKILL");
      expect(await waitFor(() => all.every((pid) => !isProcessAlive(pid)), 20_000)).toBe(true);
    },
    90_000,
  );

  it.skipIf(!isLinux)(
    "ends all 100 kernels of a host that is SIGKILLed",
    async () => {
      const { host, out } = startHost("host-guard-script.ts", "100");
      expect(await waitFor(() => /^BUSY \d+ \d+$/m.test(out()), 150_000, 100)).toBe(true);
      const [guard = 0] = numbersAfter(out(), "GUARD");
      const runners = numbersAfter(out(), "RUNNERS");
      const [daemon = 0] = numbersAfter(out(), "DAEMON");
      const all = [guard, ...runners, daemon];
      strays.push(...all);
      expect(runners).toHaveLength(100);
      expect(all.every((pid) => pid > 1 && isProcessAlive(pid))).toBe(true);
      host.kill("SIGKILL");
      const started = Date.now();
      expect(await waitFor(() => all.every((pid) => !isProcessAlive(pid)), 30_000, 50)).toBe(true);
      process.stdout.write(`100 kernels gone ${Date.now() - started} ms after the host was killed\n`);
    },
    200_000,
  );

  it.skipIf(!isLinux)(
    "never keeps the host alive: a host whose kernels ended exits by itself, and its guard follows; the guard runs the interpreter the kernel reported, not the wrapper script it was started through",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "evalkit-guard-wrapper-"));
      const wrapper = join(dir, "python-wrapper.sh");
      writeFileSync(wrapper, `#!/bin/sh\nexec ${TEST_PYTHON} "$@"\n`, { mode: 0o755 });
      const { host, out } = startHostWith(wrapper, "host-guard-exit-script.ts");
      const exited = new Promise<number | null>((resolve) => host.once("exit", (code) => resolve(code)));
      expect(
        await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("hung"), 60_000))]),
      ).toBe(0);
      const [guard = 0] = numbersAfter(out(), "GUARD");
      strays.push(guard);
      expect(guard).toBeGreaterThan(1);
      expect(/^GUARD_PROGRAM (.*)$/m.exec(out())?.[1]).toBe(TEST_PYTHON);
      expect(await waitFor(() => !isProcessAlive(guard), 10_000)).toBe(true);
      rmSync(dir, { recursive: true, force: true });
    },
    90_000,
  );
});
