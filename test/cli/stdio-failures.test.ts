// Writes that fail: the real command with stdout or stderr on /dev/full ends with one line and a non-zero status.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { TEST_PYTHON } from "../helpers/interpreters.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const HAS_DEV_FULL = existsSync("/dev/full");

/** Runs the installed command with stdout and/or stderr pointed at /dev/full. */
function runOnFull(args: string[], full: { stdout?: boolean; stderr?: boolean }) {
  const fd = openSync("/dev/full", "w");
  try {
    const result = spawnSync(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), ...args], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", full.stdout ? fd : "pipe", full.stderr ? fd : "pipe"],
      env: { ...process.env, EVALKIT_PYTHON: TEST_PYTHON },
      timeout: 60_000,
    });
    return { status: result.status, signal: result.signal, stderr: result.stderr ?? "" };
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!HAS_DEV_FULL)("a command whose output cannot be written (/dev/full)", () => {
  beforeAll(async () => {
    // `npm test` builds first; a bare `vitest run` on a stale or fresh tree builds the bundle here.
    await ensureBuilt();
  }, 180_000);

  it.each([
    ["exec --json", ["exec", "--json", "-c", "1+1"]],
    ["exec (text)", ["exec", "-c", "print('hello')"]],
    ["doctor", ["doctor"]],
    ["--help", ["--help"]],
  ])("%s ends with exactly one line on stderr and status 1, no stack trace", (_name, args) => {
    const result = runOnFull(args, { stdout: true });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "evalkit: could not write to standard output: no space left on device (ENOSPC)\n",
    );
  });

  it("ends with a non-zero status and no crash when stderr cannot be written either", () => {
    const result = runOnFull(["exec", "-c", "import sys; print('x'); print('y', file=sys.stderr)"], {
      stdout: true,
      stderr: true,
    });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
  });

  it("keeps a failing status when only stderr is full, and 0 when nothing needed writing there", () => {
    const usage = runOnFull(["exec", "--no-such-flag"], { stderr: true });
    expect(usage.signal).toBeNull();
    expect(usage.status).toBe(2);
    const ok = runOnFull(["exec", "-c", "1+1"], { stderr: true });
    expect(ok.status).toBe(0);
  });
});
