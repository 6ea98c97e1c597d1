// A JS cell's double-forked, non-dumpable daemon ends with the kernel however the kernel ends, with the host as an
// unprivileged user (root could read the daemon's environment, and the tag scan would find it without the subreaper).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { JsKernel } from "../../src/kernel/js/js-kernel.js";
import { findProcesses, isProcessAlive, waitFor } from "../helpers/processes.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { prepareUnprivilegedHost } from "../helpers/unprivileged-host.js";

const fixture = fileURLToPath(new URL("../fixtures/host-js-daemon-script.ts", import.meta.url));
const isLinux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
const hasSetpriv = existsSync("/usr/bin/setpriv");
// The cells run a system Python that `nobody` can execute (a pyenv under /root is out of its reach).
const systemPython = ["/usr/bin/python3", "/usr/local/bin/python3"].find((file) => existsSync(file));
const hasAgent = spawnSync("ssh-agent", ["-k"], { stdio: "ignore" }).error === undefined;
const noTools = !isLinux
  ? "the subreaper is Linux only"
  : isRoot && !hasSetpriv
    ? "running as root without /usr/bin/setpriv, so the host cannot drop to an unprivileged user"
    : systemPython === undefined
      ? "no system python3 (/usr/bin/python3) for the cells and the subreaper parent"
      : undefined;
// The host runs from a copy `nobody` can read: the checkout may be private (a clone in /root, mode 700).
const unprivileged = noTools === undefined ? await prepareUnprivilegedHost([fixture]) : undefined;
const noUnprivilegedHost = noTools ?? (unprivileged?.ok === false ? unprivileged.reason : undefined);
const home = mkdtempSync(join(tmpdir(), "evalkit-js-lifetime-"));
chmodSync(home, 0o777);
const hosts: ChildProcess[] = [];
const strays: number[] = [];

afterAll(() => {
  for (const host of hosts) host.kill("SIGKILL");
  for (const pid of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
  rmSync(home, { recursive: true, force: true });
  if (unprivileged?.ok) unprivileged.cleanup();
});

interface Host {
  child: ChildProcess;
  mark: string;
  out: () => string;
}

/**
 * The fixture host as `nobody` (as root: bundled into a copy it can read) or as this user, with a mark every process
 * of its kernel inherits.
 */
function startHost(mode: string): Host {
  const mark = `js-lifetime-${randomBytes(6).toString("hex")}`;
  if (!unprivileged?.ok) throw new Error(`no unprivileged host: ${noUnprivilegedHost}`);
  const command = unprivileged.command(fixture, mode, systemPython ?? "python3");
  const child = spawn(command[0]!, command.slice(1), {
    cwd: unprivileged.dir,
    stdio: ["pipe", "pipe", "inherit"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      EVALKIT_HOME: home,
      EVALKIT_TEST_MARK: mark,
    },
  });
  hosts.push(child);
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { child, mark, out: () => text };
}

/** `pid` and every process below it. */
function treeOf(pid: number | undefined): Set<number> {
  const tree = new Set<number>();
  const todo = pid === undefined ? [] : [pid];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    tree.add(next);
    try {
      for (const task of readdirSync(`/proc/${next}/task`)) {
        const text = readFileSync(`/proc/${next}/task/${task}/children`, "utf8").trim();
        if (text !== "") todo.push(...text.split(" ").map(Number));
      }
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/**
 * Live processes with the mark in their environment (everything the host and its kernels started) outside the
 * tree of `host` (itself and a kernel it still runs, such as the fresh one after a reset): the escapees, described.
 */
function escaped(mark: string, host: number | undefined): string[] {
  const needle = `EVALKIT_TEST_MARK=${mark}`;
  const inside = treeOf(host);
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || inside.has(Number(entry))) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(needle)) {
        if (isProcessAlive(Number(entry))) {
          found.push(
            `${entry} ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 200)}`,
          );
        }
      }
    } catch {
      // gone, or unreadable for a non-root test run (the pid checks remain)
    }
  }
  return found;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
}

/**
 * Runs `mode` and checks the daemon really is the hard case (another session, non-dumpable, unprivileged), that the
 * kernel runs under the subreaper parent, and that once the kernel ended nothing it started is left.
 */
async function expectNothingLeft(mode: string, expectedStatus: string | undefined): Promise<void> {
  const host = startHost(mode);
  expect(await waitFor(() => /DAEMON \d+ \d+/.test(host.out()), 40_000), host.out()).toBe(true);
  const [, daemon, kernel] = /DAEMON (\d+) (\d+)/.exec(host.out())!.map(Number) as [number, number, number];
  const sandboxed = mode === "sandbox";
  // In the sandbox the pids are the PID namespace's; the daemon's command line carries the mark (not ssh-agent's).
  const found = mode === "agent" ? [daemon] : findProcesses("-c", host.mark);
  expect(found, "the daemon runs").toHaveLength(1);
  const daemonPid = found[0]!;
  strays.push(daemonPid);
  if (!sandboxed) {
    expect(daemonPid).toBe(daemon);
    expect(sessionOf(daemon)).not.toBe(sessionOf(kernel));
    // Adopted: the double fork handed the daemon to the kernel's subreaper parent (the runner itself for
    // Python), not to init.
    const parent = mode === "py-stuck" ? kernel : parentOf(kernel);
    if (mode !== "py-stuck")
      expect(readFileSync(`/proc/${parent}/cmdline`, "utf8")).toContain("subreaper_parent.py");
    expect(parentOf(daemon)).toBe(parent);
  }
  if (isRoot) {
    expect(readFileSync(`/proc/${daemonPid}/status`, "utf8")).toMatch(/^Uid:\s+65534\b/m);
    // Non-dumpable: its /proc files belong to root, so `nobody` (the host) cannot read its environment.
    expect(statSync(`/proc/${daemonPid}/environ`).uid).toBe(0);
  }
  const endedAt = Date.now();
  host.child.stdin?.write("go\n");
  if (expectedStatus === undefined) host.child.kill("SIGKILL");
  else expect(await waitFor(() => /ENDED \w+/.test(host.out()), 60_000), host.out()).toBe(true);
  if (expectedStatus !== undefined) expect(/ENDED (\w+)/.exec(host.out())?.[1]).toBe(expectedStatus);
  const gone = await waitFor(
    () => !isProcessAlive(daemonPid) && (sandboxed || !isProcessAlive(kernel)),
    10_000,
  );
  expect(gone, `daemon ${daemonPid} alive: ${isProcessAlive(daemonPid)}`).toBe(true);
  console.log(`${mode}: daemon gone ${Date.now() - endedAt} ms after the kernel's end began`);
  // Nothing with the mark is left outside the host's own tree (the host still runs in most modes).
  const hostPid = expectedStatus === undefined ? undefined : host.child.pid;
  const clean = await waitFor(() => escaped(host.mark, hostPid).length === 0, 5000);
  expect(clean, escaped(host.mark, hostPid).join("\n")).toBe(true);
  host.child.kill("SIGKILL");
}

describe("chaos: a JS kernel's double-forked daemon, host unprivileged", () => {
  requireOrExplainSkip("the unprivileged-host JS daemon tests", noUnprivilegedHost);
  requireOrExplainSkip(
    "the ssh-agent JS daemon test",
    hasAgent ? undefined : "ssh-agent (openssh-client) is missing",
  );
  const runs = noUnprivilegedHost === undefined;

  it.skipIf(!runs)("is gone after dispose()", () => expectNothingLeft("dispose", "disposed"), 90_000);
  it.skipIf(!runs)(
    "is gone once a timeout kills the kernel",
    () => expectNothingLeft("timeout", "killed"),
    90_000,
  );
  it.skipIf(!runs)(
    "is gone when the kernel ignores SIGTERM and only the SIGKILL of its group ends it",
    () => expectNothingLeft("stubborn", "killed"),
    90_000,
  );
  it.skipIf(!runs)(
    "is gone when the host is SIGKILLed",
    () => expectNothingLeft("hostkill", undefined),
    90_000,
  );
  it.skipIf(!runs)(
    "is gone when a cell calls process.exit()",
    () => expectNothingLeft("exit", "died"),
    90_000,
  );
  it.skipIf(!runs)(
    "is gone when the kernel runs out of V8 heap",
    () => expectNothingLeft("heap", "died"),
    90_000,
  );
  it.skipIf(!runs)(
    "is gone when the host kills the kernel past its memory limit",
    () => expectNothingLeft("rss", "died"),
    90_000,
  );
  it.skipIf(!runs)("is gone after a reset", () => expectNothingLeft("reset", "ok"), 90_000);
  it.skipIf(!runs || !hasAgent)(
    "is gone when it is a real ssh-agent",
    () => expectNothingLeft("agent", "disposed"),
    90_000,
  );
  it.skipIf(!runs || sandboxSkipReason !== "")(
    `is gone after dispose() of a sandboxed kernel ${sandboxSkipReason}`,
    () => expectNothingLeft("sandbox", "disposed"),
    90_000,
  );
});

describe("chaos: a Python kernel's double-forked daemon, host unprivileged", () => {
  it.skipIf(noUnprivilegedHost !== undefined)(
    "is gone once a timeout kills a runner stuck in C code holding the GIL (SIGTERM ends it outright)",
    () => expectNothingLeft("py-stuck", "killed"),
    90_000,
  );
});

describe.skipIf(!isLinux)("the JS kernel's subreaper parent", () => {
  it("reaps the orphans it adopts, so no zombie piles up while the kernel lives", async () => {
    const kernel = new JsKernel();
    try {
      const spawned = await kernel.execute(
        "const { spawnSync } = require('node:child_process');\n" +
          "for (let i = 0; i < 5; i++) spawnSync('sh', ['-c', 'sleep 0.05 &']);\n" +
          "process.pid",
      );
      const result = spawned.outputs.find((o) => o.type === "result");
      const node = Number(result?.type === "result" ? result.data["text/plain"] : NaN);
      const parent = parentOf(node);
      expect(parent).toBe(kernel.pid);
      const childrenOfParent = () =>
        readdirSync(`/proc/${parent}/task`).flatMap((task) =>
          readFileSync(`/proc/${parent}/task/${task}/children`, "utf8")
            .trim()
            .split(" ")
            .filter(Boolean)
            .map(Number),
        );
      // Each orphaned sleep came to the parent; once they exit it waits for them: only the kernel stays its child.
      expect(
        await waitFor(() => childrenOfParent().join() === String(node), 5000),
        `${childrenOfParent()}`,
      ).toBe(true);
    } finally {
      await kernel.shutdown();
    }
  });

  it("passes the kernel's exit code through, and its signal", async () => {
    const kernel = new JsKernel();
    const exits: unknown[] = [];
    kernel.onExit((exit) => exits.push({ code: exit.exitCode, signal: exit.signal }));
    await expect(kernel.execute("process.exit(7)")).rejects.toMatchObject({ code: "KERNEL_DIED" });
    await expect(
      kernel.execute("process.kill(process.pid, 'SIGSEGV'); await new Promise(() => {})"),
    ).rejects.toMatchObject({
      code: "KERNEL_DIED",
    });
    await kernel.shutdown();
    expect(exits.slice(0, 2)).toEqual([
      { code: 7, signal: null },
      { code: null, signal: "SIGSEGV" },
    ]);
  });
});
