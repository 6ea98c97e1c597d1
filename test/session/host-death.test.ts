// Integration test: when the host process dies mid-cell, its kernel and everything the kernel started die too.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findTaggedProcesses } from "../../src/kernel/process/process-tree.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";

const script = fileURLToPath(new URL("../fixtures/session-host-script.ts", import.meta.url));
const sandboxScript = fileURLToPath(new URL("../fixtures/sandbox-host-script.ts", import.meta.url));

describe("host death", () => {
  it("leaves no Python process and no child of it behind when the host is killed", async () => {
    const host = spawn(process.execPath, ["--import", "tsx", script, TEST_PYTHON], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    host.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const reported = await waitFor(() => /PIDS \d+ \d+/.test(stdout), 20_000);
    expect(reported).toBe(true);
    const [, kernelPid, childPid] = /PIDS (\d+) (\d+)/.exec(stdout)!.map(Number) as [number, number, number];
    expect(isProcessAlive(kernelPid)).toBe(true);
    expect(isProcessAlive(childPid)).toBe(true);
    host.kill("SIGKILL");
    expect(await waitFor(() => !isProcessAlive(kernelPid) && !isProcessAlive(childPid), 10_000)).toBe(true);
  }, 40_000);

  it.skipIf(sandboxSkipReason !== "")(
    `takes a sandboxed kernel, bwrap and a detached child inside it along when the host is killed ${sandboxSkipReason}`,
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), "evalkit-sandbox-host-"));
      const host = spawn(process.execPath, ["--import", "tsx", sandboxScript, TEST_PYTHON, cwd], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      host.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      try {
        expect(await waitFor(() => /TAG \w+\n/.test(stdout), 20_000)).toBe(true);
        const tag = /TAG (\w+)\n/.exec(stdout)?.[1] ?? "";
        // bwrap, its init inside the namespace, the runner and the detached sleep all carry the tag.
        expect(findTaggedProcesses(tag).length).toBeGreaterThanOrEqual(3);
        host.kill("SIGKILL");
        expect(await waitFor(() => findTaggedProcesses(tag).length === 0, 10_000)).toBe(true);
      } finally {
        host.kill("SIGKILL");
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    40_000,
  );
});
