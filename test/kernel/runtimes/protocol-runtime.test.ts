// A kernel of a protocol runner from its description alone (the Perl runner of the conformance suite) over the
// one kernel client: cells, input, interrupt, the escalation kill, output retained once, death and shutdown.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import type { KernelClient } from "../../../src/kernel/client/kernel-client.js";
import { defineRuntime } from "../../../src/kernel/runtimes/define-runtime.js";
import { createRuntimeKernel } from "../../../src/kernel/runtimes/protocol-runtime.js";
import { findProcesses, waitFor } from "../../helpers/processes.js";
import { requireOrExplainSkip } from "../../helpers/required.js";
import { findPerlMissing, PERL_RUNNER } from "../../protocol/runtimes.js";

const perlMissing = findPerlMissing();
requireOrExplainSkip("the Perl runtime's kernel tests", perlMissing);

/** A runner that misbehaves as FAKE_RUNNER_MODE says (silent, garbage, partial ready line). */
const GARBAGE_RUNNER = fileURLToPath(new URL("../../fixtures/garbage-runner.sh", import.meta.url));
const perl = defineRuntime({ name: "perl", command: ["perl", PERL_RUNNER], interruptGraceMs: 300 });
const kernels: KernelClient[] = [];

async function startKernel(): Promise<KernelClient> {
  const kernel = createRuntimeKernel(perl);
  kernels.push(kernel);
  await kernel.start();
  return kernel;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.shutdown()));
});

describe.skipIf(perlMissing !== undefined)("a protocol runtime's kernel", () => {
  it("runs cells with the runner's own execution count, streams in order and the result", async () => {
    const kernel = await startKernel();
    expect(kernel.language).toBe("perl");
    const outcome = await kernel.execute('print "a\\n"; print STDERR "b\\n"; 6 * 7');
    expect(outcome).toMatchObject({ status: "ok", cancelled: false, executionCount: 1 });
    expect(outcome.outputs).toEqual([
      { type: "stream", name: "stdout", text: "a\n" },
      { type: "stream", name: "stderr", text: "b\n" },
      { type: "result", data: { "text/plain": "42" } },
    ]);
    expect((await kernel.execute("1")).executionCount).toBe(2);
    expect(kernel.isComplete).toBeUndefined();
  });

  it("answers input() through onInputRequest", async () => {
    const kernel = await startKernel();
    const prompts: string[] = [];
    const outcome = await kernel.execute('input("name? ")', {
      onInputRequest: async (prompt) => {
        prompts.push(prompt);
        return "ada";
      },
    });
    expect(prompts).toEqual(["name? "]);
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "ada" } }]);
  });

  it("hands every output only to onOutput when the caller retains them (retainOutputs: false)", async () => {
    const kernel = await startKernel();
    const seen: KernelOutput[] = [];
    const outcome = await kernel.execute('print "once\\n"; 2', {
      retainOutputs: false,
      onOutput: (output) => seen.push(output),
    });
    expect(outcome.outputs).toEqual([]);
    expect(seen).toMatchObject([
      { type: "stream", name: "stdout", text: "once\n" },
      { type: "result", data: { "text/plain": "2" } },
    ]);
  });

  it("cancels a busy cell when its signal aborts and keeps the state", async () => {
    const kernel = await startKernel();
    await kernel.execute("our $kept = 1;");
    const outcome = await kernel.execute("1 while 1;", { signal: AbortSignal.timeout(200) });
    expect(outcome).toMatchObject({ status: "error", cancelled: true });
    expect((await kernel.execute("$kept")).outputs).toEqual([
      { type: "result", data: { "text/plain": "1" } },
    ]);
  });

  it("kills a cell that ignores its interrupt after the cell's own grace, as KERNEL_DIED with killed", async () => {
    const kernel = await startKernel();
    const started = Date.now();
    const failure = await kernel
      .execute("local $SIG{INT} = 'IGNORE'; 1 while 1;", {
        signal: AbortSignal.timeout(100),
        interruptGraceMs: 200,
      })
      .catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
    expect(isEvalkitError(failure) && failure.message).toContain("did not stop within 200 ms");
    expect(isEvalkitError(failure) && failure.details).toMatchObject({ killed: true, stateLost: true });
    expect(kernel.isAlive).toBe(false);
    // The runtime does not restart by itself: the next cell never reaches a kernel, and says so.
    await expect(kernel.execute("1")).rejects.toMatchObject({
      code: "KERNEL_DIED",
      details: { started: false },
    });
  });

  it("reports a runner that exits during a cell with its exit code and stderr", async () => {
    const kernel = await startKernel();
    const failure = await kernel.execute('print STDERR "bye\\n"; exit 7;').catch((err: unknown) => err);
    expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
    expect(isEvalkitError(failure) && failure.details).toMatchObject({ exitCode: 7, killed: false });
  });

  it("fails the cell running at shutdown as started (KERNEL_DIED), never as a cell that did not run", async () => {
    const kernel = await startKernel();
    const running = kernel.execute("1 while 1;").catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await kernel.shutdown();
    expect(await running).toMatchObject({ code: "KERNEL_DIED", details: { started: true, requested: true } });
  });

  it("fails cells after shutdown with KERNEL_CLOSED", async () => {
    const kernel = await startKernel();
    const exit = await kernel.shutdown();
    expect(exit?.requested).toBe(true);
    await expect(kernel.execute("1")).rejects.toMatchObject({ code: "KERNEL_CLOSED" });
  });

  it("fails start-up with KERNEL_START_FAILED naming a missing program", async () => {
    const kernel = createRuntimeKernel(defineRuntime({ name: "nothing", command: ["/nonexistent/runner"] }));
    kernels.push(kernel);
    await expect(kernel.start()).rejects.toMatchObject({
      code: "KERNEL_START_FAILED",
      message: expect.stringContaining("was not found"),
    });
  });

  it.each([
    ["never says ready", "silent"],
    ["writes garbage instead of frames", "garbage"],
    ["stops in the middle of its ready line", "partial"],
  ])(
    "fails start-up with KERNEL_START_FAILED when the runner %s, and leaves no process",
    async (_what, mode) => {
      const runtime = defineRuntime({
        name: `hostile-${mode}`,
        command: ["sh", GARBAGE_RUNNER],
        env: { FAKE_RUNNER_MODE: mode },
        startTimeoutMs: 1500,
      });
      const kernel = createRuntimeKernel(runtime);
      kernels.push(kernel);
      const started = Date.now();
      await expect(kernel.start()).rejects.toMatchObject({ code: "KERNEL_START_FAILED" });
      expect(Date.now() - started).toBeLessThan(15_000);
      await waitFor(() => findProcesses(GARBAGE_RUNNER).length === 0, 5000);
      expect(findProcesses(GARBAGE_RUNNER)).toEqual([]);
    },
  );
});
