// JupyterKernel against real Jupyter servers on 127.0.0.1 (Debian's 1.x and pip's 2.x): outputs, errors, interrupt, death.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import type { JupyterKernel } from "../../../src/kernel/jupyter/jupyter-kernel.js";
import { createJupyterServer } from "../../../src/kernel/jupyter/jupyter-server.js";
import {
  findJupyterFlavours,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../../helpers/jupyter-server.js";
import { requireOrExplainSkip } from "../../helpers/required.js";

const { found, missing } = isJupyterIntegration ? findJupyterFlavours() : { found: [], missing: [] };
if (isJupyterIntegration) for (const why of missing) requireOrExplainSkip("a Jupyter server flavour", why);

describe.runIf(isJupyterIntegration && found.length > 0).each(found)(
  "JupyterKernel on $name $version",
  (flavour) => {
    let server: TestJupyterServer;
    let kernel: JupyterKernel;

    beforeAll(async () => {
      server = await startJupyterServer(flavour);
      kernel = createJupyterServer({ url: server.url, token: server.token }).createKernel("python3", "py");
      await kernel.start();
    }, 90_000);

    afterAll(async () => {
      await kernel?.shutdown();
      await server?.stop();
    }, 30_000);

    it("keeps state between cells and reports the value of the last expression as a result", async () => {
      await kernel.execute("x = 20");
      const outcome = await kernel.execute("print('seen')\nx * 2 + 2");
      expect(outcome.status).toBe("ok");
      expect(outcome.executionCount).toBeGreaterThan(0);
      expect(outcome.outputs).toEqual([
        { type: "stream", name: "stdout", text: "seen\n" },
        { type: "result", data: { "text/plain": "42" } },
      ]);
    });

    it("maps display ids, display updates and clear_output to the outputs local kernels produce", async () => {
      const live: KernelOutput[] = [];
      const outcome = await kernel.execute(
        [
          "from IPython.display import display, clear_output",
          "h = display('first', display_id='d1')",
          "h.update('second')",
          "clear_output(wait=True)",
          "import sys; print('err', file=sys.stderr)",
        ].join("\n"),
        { onOutput: (o) => live.push(o) },
      );
      expect(outcome.status).toBe("ok");
      expect(live).toEqual([
        { type: "display", data: { "text/plain": "'first'" }, displayId: "d1" },
        { type: "display", data: { "text/plain": "'second'" }, displayId: "d1", update: true },
        { type: "clear_output", wait: true },
        { type: "stream", name: "stderr", text: "err\n" },
      ]);
    });

    it("completes at the contract's cursor, in UTF-16 units, with code after the cursor left alone", {
      timeout: 90_000,
    }, async () => {
      await kernel.execute("abc_value = 1");
      // The emoji before the cursor is one code point for Jupyter and two UTF-16 units for the host.
      const code = 'x = "\u{1F600}" + abc_v\nprint(1)';
      const cursor = code.indexOf("\n");
      // A generous wait: the kernel's first completion loads jedi, seconds on a loaded machine.
      const reply = await kernel.complete(code, cursor, 60_000);
      expect(reply.matches).toContain("abc_value");
      expect(code.slice(reply.start, cursor)).toBe("abc_v");
    });

    it("reports an exception as an error outcome with its name, value and traceback", async () => {
      const outcome = await kernel.execute("raise ValueError('bad value')");
      expect(outcome.status).toBe("error");
      expect(outcome.cancelled).toBe(false);
      expect(outcome.error?.ename).toBe("ValueError");
      expect(outcome.error?.evalue).toBe("bad value");
      expect(outcome.error?.traceback.join("\n")).toContain("bad value");
    });

    it("runs a cell sent right after a failing one (no stop-on-error abort on the server)", async () => {
      expect((await kernel.execute("raise ValueError('first')")).status).toBe("error");
      const next = await kernel.execute("40 + 2");
      expect(next.status).toBe("ok");
    });

    it("fails input() at once when nobody can answer it", async () => {
      const startedAt = performance.now();
      const outcome = await kernel.execute("input('name? ')");
      expect(outcome.status).toBe("error");
      expect(outcome.error?.ename).toBe("StdinNotImplementedError");
      expect(performance.now() - startedAt).toBeLessThan(10_000);
    });

    it("answers input() through onInputRequest when one is given", async () => {
      const prompts: string[] = [];
      const outcome = await kernel.execute("name = input('name? ')\nprint('hello', name)", {
        onInputRequest: async (prompt) => {
          prompts.push(prompt);
          return "ada";
        },
      });
      expect(prompts).toEqual(["name? "]);
      expect(outcome.outputs).toContainEqual({ type: "stream", name: "stdout", text: "hello ada\n" });
    });

    it("interrupts a running cell through the server and keeps the kernel's state", async () => {
      await kernel.execute("kept = 'yes'");
      const running = kernel.execute("import time\nwhile True: time.sleep(0.01)");
      setTimeout(() => kernel.interrupt(), 300);
      const outcome = await running;
      expect(outcome.status).toBe("error");
      expect(outcome.cancelled).toBe(true);
      expect(outcome.error?.ename).toBe("KeyboardInterrupt");
      expect((await kernel.execute("kept")).outputs).toEqual([
        { type: "result", data: { "text/plain": "'yes'" } },
      ]);
    });

    it("dies, rejecting the running cell, when the kernel is deleted behind its back", async () => {
      const other = createJupyterServer({ url: server.url, token: server.token }).createKernel(
        "python3",
        "py",
      );
      await other.start();
      const exits: unknown[] = [];
      other.onExit((exit) => exits.push(exit));
      const running = other.execute("import time\ntime.sleep(30)");
      await new Promise((r) => setTimeout(r, 300));
      await fetch(`${server.url}/api/kernels/${other.kernelId}`, {
        method: "DELETE",
        headers: { Authorization: `token ${server.token}` },
      });
      const err = await running.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isEvalkitError(err, "KERNEL_DIED")).toBe(true);
      expect(other.isAlive).toBe(false);
      expect(exits).toHaveLength(1);
      expect(exits[0]).toMatchObject({ requested: false, cause: "the kernel was shut down on the server" });
    }, 30_000);

    it("deletes a kernel whose cell ignores the interrupt after the cell's grace, as killed (the local kernels' notice)", async () => {
      const other = createJupyterServer({ url: server.url, token: server.token }).createKernel(
        "python3",
        "py",
      );
      await other.start();
      const started = Date.now();
      const err = await other
        .execute("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass", {
          signal: AbortSignal.timeout(300),
          interruptGraceMs: 300,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(isEvalkitError(err, "KERNEL_DIED")).toBe(true);
      expect(isEvalkitError(err) && err.message).toContain("did not stop within 300 ms of the interrupt");
      expect(isEvalkitError(err) && err.details).toMatchObject({ killed: true, stateLost: true });
      expect(other.isAlive).toBe(false);
    }, 30_000);

    it("deletes its kernel on the server at shutdown", async () => {
      const other = createJupyterServer({ url: server.url, token: server.token }).createKernel(
        "python3",
        "py",
      );
      await other.start();
      expect((await server.listKernels()).map((k) => k.id)).toContain(other.kernelId);
      const exit = await other.shutdown();
      expect(exit?.requested).toBe(true);
      expect((await server.listKernels()).map((k) => k.id)).not.toContain(other.kernelId);
      await expect(other.execute("1")).rejects.toMatchObject({ code: "KERNEL_CLOSED" });
    }, 30_000);
  },
);
