// A runner replaced by a hostile fake (garbage, partial JSON, a 100 MB line, silence, a sudden exit): every
// case ends with a typed error or a cell status, the host survives, the next call works, no process is left.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { TEST_PYTHON } from "../helpers/python.js";
import { createManager, findLeftovers, textOf } from "./chaos-helpers.js";

const FAKE = fileURLToPath(new URL("../fixtures/chaos-runner.sh", import.meta.url));

/** A manager whose first kernel is the fake runner in `mode`; later kernels are the real interpreter. */
function createManagerWithFake(mode: string) {
  let python = FAKE;
  const manager = createManager({
    resolveCacheMs: 0,
    interruptGraceMs: 500,
    resolveInterpreter: async () => ({
      executable: python,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CHAOS_RUNNER_MODE: mode },
    }),
  });
  return { manager, useRealPython: () => (python = TEST_PYTHON) };
}

const MID_CELL_CASES: { mode: string; statuses: string[] }[] = [
  { mode: "garbage", statuses: ["died"] },
  { mode: "partial-exit", statuses: ["died"] },
  { mode: "partial-hang", statuses: ["died", "killed", "timeout"] },
  { mode: "huge-line", statuses: ["died"] },
  // SIGINT kills the fake's `sleep`, so the interrupt of the timeout ends it: died or killed both say so.
  { mode: "silent", statuses: ["died", "killed", "timeout"] },
  { mode: "exit-mid-cell", statuses: ["died"] },
];

describe("chaos: a hostile runner", () => {
  it.each(MID_CELL_CASES)(
    "ends a cell whose runner turns $mode with a clear status, and the next call works",
    async ({ mode, statuses }) => {
      const { manager, useRealPython } = createManagerWithFake(mode);
      const rssBefore = process.memoryUsage().rss;
      const started = Date.now();
      // A broken peer is a cell status with a notice, never a thrown host error.
      const cell: SessionCellOutcome = await manager.run({ code: "1 + 1", timeoutSec: 2 });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(statuses).toContain(cell.status);
      expect(cell.notices.length).toBeGreaterThan(0);
      // A 100 MB line is refused at the line bound, not buffered whole.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
      useRealPython();
      const next = await manager.run({ code: "import os\nprint(6 * 7)\nos.getpid()", timeoutSec: 15 });
      expect(next.status).toBe("ok");
      expect(textOf(next)).toMatch(/^42\n\d+$/);
    },
  );

  it.each(["garbage", "partial-exit", "huge-line", "exit-mid-cell"])(
    "rejects the running cell of a PythonKernel whose runner turns %s with a typed error and leaves no process",
    async (mode) => {
      const kernel = new PythonKernel({
        python: FAKE,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CHAOS_RUNNER_MODE: mode },
        startTimeoutMs: 5000,
      });
      await kernel.start();
      const pid = kernel.pid!;
      const error = await kernel.execute("1").catch((err: unknown) => err);
      expect(isEvalkitError(error, "PROTOCOL_ERROR") || isEvalkitError(error, "KERNEL_DIED")).toBe(true);
      await kernel.shutdown();
      expect(kernel.isAlive).toBe(false);
      expect(await findLeftovers(pid, [pid])).toEqual([]);
    },
  );

  it("fails start-up with KERNEL_START_FAILED when the runner never says anything, and leaves no process", async () => {
    const kernel = new PythonKernel({
      python: FAKE,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CHAOS_RUNNER_MODE: "silent-start" },
      startTimeoutMs: 1000,
    });
    const started = Date.now();
    const error = await kernel.start().catch((err: unknown) => err);
    expect(isEvalkitError(error, "KERNEL_START_FAILED")).toBe(true);
    expect(Date.now() - started).toBeLessThan(8000);
    const pid = kernel.pid!;
    expect(await findLeftovers(pid, [pid])).toEqual([]);
  });
});
