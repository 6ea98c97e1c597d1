// Integration test: when the host process dies mid-cell, its kernel and everything the kernel started die too.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const script = fileURLToPath(new URL("../fixtures/session-host-script.ts", import.meta.url));

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
});
