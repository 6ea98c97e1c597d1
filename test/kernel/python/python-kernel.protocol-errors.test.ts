// A runner that breaks the protocol gives a clear typed error, never a hang or a host crash.

import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../../src/errors.js";
import { PythonKernel } from "../../../src/kernel/python/python-kernel.js";

const FAKE = new URL("../../fixtures/garbage-runner.sh", import.meta.url).pathname;

function fakeKernel(mode: string, startTimeoutMs = 1500) {
  return new PythonKernel({
    python: FAKE,
    env: { ...(process.env as Record<string, string>), FAKE_RUNNER_MODE: mode },
    startTimeoutMs,
  });
}

describe("PythonKernel against a misbehaving runner", () => {
  it.each(["garbage", "partial", "silent"])(
    "fails start-up with KERNEL_START_FAILED when the runner is %s",
    async (mode) => {
      const kernel = fakeKernel(mode);
      const started = Date.now();
      const error = await kernel.start().catch((err: unknown) => err);
      expect(isEvalkitError(error, "KERNEL_START_FAILED")).toBe(true);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(kernel.isAlive).toBe(false);
    },
  );

  it("rejects the running cell with PROTOCOL_ERROR when garbage follows the handshake", async () => {
    const kernel = fakeKernel("ready-then-garbage");
    await kernel.start();
    const error = await kernel.execute("1").catch((err: unknown) => err);
    expect(isEvalkitError(error, "PROTOCOL_ERROR")).toBe(true);
    await kernel.shutdown();
    expect(kernel.isAlive).toBe(false);
  });
});
