// The kernel's lifetime is its host's: it ends with a killed host even while C code holds the GIL, and daemons a
// cell double-forks (non-dumpable, host unprivileged) do not outlive a disposed session.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { DEBIAN_PYTHON, startKernel, TEST_PYTHON } from "../helpers/python.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { prepareUnprivilegedHost } from "../helpers/unprivileged-host.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const isLinux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
const hasSetpriv = isLinux && existsSync("/usr/bin/setpriv");
const strays: number[] = [];
// As root the test drops to `nobody` with setpriv (util-linux); as another user it already is unprivileged.
const noTools = !isLinux
  ? "the subreaper is Linux only"
  : isRoot && !hasSetpriv
    ? "running as root without /usr/bin/setpriv, so the host cannot drop to an unprivileged user"
    : undefined;
// The host runs from a copy `nobody` can read: the checkout may be private (a clone in /root, mode 700).
const unprivileged =
  noTools === undefined ? await prepareUnprivilegedHost([fixture("host-daemon-script.ts")]) : undefined;
const noUnprivilegedHost = noTools ?? (unprivileged?.ok === false ? unprivileged.reason : undefined);

afterAll(() => {
  if (unprivileged?.ok) unprivileged.cleanup();
  for (const pid of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
});

function collect(child: ChildProcess): () => string {
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return () => out;
}

describe("chaos: the kernel's lifetime", () => {
  requireOrExplainSkip("the unprivileged-host daemon test", noUnprivilegedHost);

  it.skipIf(!isLinux)(
    "ends the kernel and its child when the host is SIGKILLed during a regex that holds the GIL",
    async () => {
      const host = spawn(
        process.execPath,
        ["--import", "tsx", fixture("host-busy-regex-script.ts"), TEST_PYTHON],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      const out = collect(host);
      expect(await waitFor(() => /PIDS \d+ \d+/.test(out()), 30_000)).toBe(true);
      const [, kernelPid, childPid] = /PIDS (\d+) (\d+)/.exec(out())!.map(Number) as [number, number, number];
      strays.push(kernelPid, childPid);
      // Let the regex start: from now on no Python thread of the runner can run.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const stat = readFileSync(`/proc/${kernelPid}/stat`, "utf8");
      expect(stat.slice(stat.lastIndexOf(")") + 2)[0]).toBe("R"); // busy in C, not waiting
      const killedAt = Date.now();
      host.kill("SIGKILL");
      expect(await waitFor(() => !isProcessAlive(kernelPid) && !isProcessAlive(childPid), 10_000)).toBe(true);
      console.log(`kernel gone ${Date.now() - killedAt} ms after the host was killed`);
    },
    60_000,
  );

  it.skipIf(!isLinux)(
    "ends the root, the live runner and every checkpoint when a host with checkpoints is SIGKILLed",
    async () => {
      const host = spawn(
        process.execPath,
        ["--import", "tsx", fixture("host-checkpoints-script.ts"), TEST_PYTHON],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const out = collect(host);
      expect(await waitFor(() => /GROUP [\d ]+\n/.test(out()), 30_000)).toBe(true);
      const pids = /GROUP ([\d ]+)\n/.exec(out())![1]!.trim().split(" ").map(Number);
      strays.push(...pids);
      // The root, the live runner (restored after a crash), two checkpoints and an automatic one, the guard.
      expect(pids.length).toBeGreaterThanOrEqual(5);
      host.kill("SIGKILL");
      expect(await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), 10_000)).toBe(true);
    },
    60_000,
  );

  // Unprivileged, because root can read any process's environment and the kernel tag would find the daemon.
  it.skipIf(noUnprivilegedHost !== undefined)(
    "kills a double-forked non-dumpable daemon on dispose when the host runs as an unprivileged user",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "evalkit-unpriv-"));
      chmodSync(home, 0o777);
      try {
        if (!unprivileged?.ok) throw new Error(`no unprivileged host: ${noUnprivilegedHost}`);
        // As root: nobody, no supplementary groups, from a copy it can read.
        const command = unprivileged.command(fixture("host-daemon-script.ts"), DEBIAN_PYTHON);
        const host = spawn(command[0]!, command.slice(1), {
          cwd: unprivileged.dir,
          stdio: ["ignore", "pipe", "inherit"],
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", EVALKIT_HOME: home, HOME: home },
        });
        const out = collect(host);
        const exited = new Promise<number | null>((resolve) => host.on("exit", (code) => resolve(code)));
        expect(await waitFor(() => /DAEMON \d+ \d+/.test(out()), 40_000)).toBe(true);
        const [, daemon, kernel] = /DAEMON (\d+) (\d+)/.exec(out())!.map(Number) as [number, number, number];
        strays.push(daemon);
        // The daemon is what the issue describes: another session, unprivileged, environment unreadable.
        const status = readFileSync(`/proc/${daemon}/status`, "utf8");
        if (isRoot) expect(/^Uid:\s+65534\b/m.test(status)).toBe(true);
        expect(
          execFileSync("ps", ["-o", "sid=", "-p", String(daemon)], { encoding: "utf8" }).trim(),
        ).not.toBe(String(kernel));
        const disposing = Date.now();
        expect(await exited).toBe(0);
        expect(out()).toContain("DISPOSED");
        expect(await waitFor(() => !isProcessAlive(daemon) && !isProcessAlive(kernel), 10_000)).toBe(true);
        console.log(`daemon gone ${Date.now() - disposing} ms after dispose began`);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
    90_000,
  );

  it.skipIf(!isLinux)(
    "reaps the orphans it adopts between cells, but leaves a Popen's exit status to its owner",
    async () => {
      const kernel = await startKernel();
      const zombies = [
        "import os",
        "def zombies():",
        "    me = os.getpid()",
        "    found = []",
        "    for task in os.listdir('/proc/self/task'):",
        "        for pid in open('/proc/self/task/%s/children' % task).read().split():",
        "            stat = open('/proc/%s/stat' % pid).read()",
        "            if stat[stat.rfind(')') + 2] == 'Z':",
        "                found.append(int(pid))",
        "    return found",
      ].join("\n");
      await kernel.execute(zombies);
      const start = await kernel.execute(
        [
          "import subprocess, time",
          "owned = subprocess.Popen(['sh', '-c', 'exit 7'])",
          "for _ in range(5):",
          "    os.system('sleep 0.05 &')  # the shell exits at once: its background child is orphaned to us",
          "time.sleep(0.5)",
          "len(zombies())",
        ].join("\n"),
      );
      // Adopted: five orphans and the unwaited Popen are zombies of the runner now.
      expect(start.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "6" } });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await kernel.execute("pass");
      const after = await kernel.execute("(zombies() == [owned.pid], owned.wait())");
      expect(after.outputs.at(-1)).toEqual({ type: "result", data: { "text/plain": "(True, 7)" } });
    },
    30_000,
  );
});
