// Unit tests of host bridge dispatch: registration errors, tools, thrown errors, signals, concurrency, timeout pause.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { HostBridge } from "../../src/session/bridge-handlers.js";
import type { SessionManagerOptions } from "../../src/session/session-types.js";
import { createFakeManagers, sleep, stdoutOf } from "./fake-kernel.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-bridge-"));
const fakeManagers = createFakeManagers();
const createManager = (options: SessionManagerOptions = {}) => fakeManagers.createManager(options).manager;
afterEach(fakeManagers.disposeAll);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function cellContext() {
  const controller = new AbortController();
  let pauses = 0;
  let releases = 0;
  return {
    controller,
    counts: () => ({ pauses, releases }),
    context: {
      signal: controller.signal,
      pauseTimeout: () => {
        pauses += 1;
        return () => {
          releases += 1;
        };
      },
    },
  };
}

describe("HostBridge", () => {
  it("fails at once with an error naming a helper that has no handler", async () => {
    const cell = cellContext();
    const onCall = new HostBridge({}).createCallHandler(cell.context);
    const signal = new AbortController().signal;
    await expect(onCall({ method: "completion", params: {}, signal })).rejects.toThrow(
      "no host handler registered for completion()",
    );
    await expect(onCall({ method: "agent", params: {}, signal })).rejects.toThrow(
      "no host handler registered for agent()",
    );
    const withTools = new HostBridge({ tools: { grep: () => 1, read: () => 2 } }).createCallHandler(
      cell.context,
    );
    await expect(onCall({ method: "tool", params: { name: "search", args: {} }, signal })).rejects.toThrow(
      "no host handler registered for tool.search() (no tools are registered)",
    );
    await expect(withTools({ method: "tool", params: { name: "search", args: {} }, signal })).rejects.toThrow(
      "(registered tools: grep, read)",
    );
  });

  it("passes params and a signal to the handler and returns its value", async () => {
    const cell = cellContext();
    let seen: unknown;
    const bridge = new HostBridge({
      completion: (params, context) => {
        seen = { params, method: context.method, aborted: context.signal.aborted };
        return `echo ${String(params.prompt)}`;
      },
      tools: { add: (args, context) => ({ sum: Number(args.a) + Number(args.b), tool: context.toolName }) },
    });
    const onCall = bridge.createCallHandler(cell.context);
    const signal = new AbortController().signal;
    expect(await onCall({ method: "completion", params: { prompt: "hi" }, signal })).toBe("echo hi");
    expect(seen).toEqual({ params: { prompt: "hi" }, method: "completion", aborted: false });
    expect(await onCall({ method: "tool", params: { name: "add", args: { a: 1, b: 2 } }, signal })).toEqual({
      sum: 3,
      tool: "add",
    });
  });

  it("keeps a thrown error's message and wraps thrown non-errors", async () => {
    const cell = cellContext();
    const onCall = new HostBridge({
      agent: () => {
        throw new TypeError("model refused");
      },
      completion: () => Promise.reject("plain string"),
    }).createCallHandler(cell.context);
    const signal = new AbortController().signal;
    await expect(onCall({ method: "agent", params: {}, signal })).rejects.toThrow(
      new TypeError("model refused"),
    );
    await expect(onCall({ method: "completion", params: {}, signal })).rejects.toThrow("plain string");
  });

  it("aborts the handler's signal when the cell's signal or the kernel's call signal aborts", async () => {
    const cell = cellContext();
    const seen: AbortSignal[] = [];
    const onCall = new HostBridge({
      completion: (_params, context) => {
        seen.push(context.signal);
        return sleep(50);
      },
    }).createCallHandler(cell.context);
    const callController = new AbortController();
    const first = onCall({ method: "completion", params: {}, signal: callController.signal });
    callController.abort();
    await first;
    expect(seen[0]?.aborted).toBe(true);
    const second = onCall({ method: "completion", params: {}, signal: new AbortController().signal });
    cell.controller.abort();
    await second;
    expect(seen[1]?.aborted).toBe(true);
  });

  it("pauses the timeout for agent and completion calls but not for tools", async () => {
    const cell = cellContext();
    const onCall = new HostBridge({
      agent: () => 1,
      completion: () => 2,
      tools: { t: () => 3 },
    }).createCallHandler(cell.context);
    const signal = new AbortController().signal;
    await onCall({ method: "agent", params: {}, signal });
    await onCall({ method: "completion", params: {}, signal });
    await onCall({ method: "tool", params: { name: "t", args: {} }, signal });
    expect(cell.counts()).toEqual({ pauses: 2, releases: 2 });
    await expect(onCall({ method: "completion", params: {}, signal: AbortSignal.abort() })).rejects.toThrow();
    expect(cell.counts()).toEqual({ pauses: 3, releases: 3 });
  });

  it("limits handler calls in flight to the configured concurrency", async () => {
    const cell = cellContext();
    let inFlight = 0;
    let peak = 0;
    const bridge = new HostBridge({
      concurrency: 2,
      completion: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await sleep(30);
        inFlight -= 1;
        return "done";
      },
    });
    const onCall = bridge.createCallHandler(cell.context);
    const signal = new AbortController().signal;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => onCall({ method: "completion", params: {}, signal })),
    );
    expect(results).toEqual(Array(6).fill("done"));
    expect(peak).toBe(2);
  });
});

describe("bridge calls through the session manager", () => {
  it("lets a slow completion outlast the cell timeout because the watchdog is paused", async () => {
    const manager = createManager({
      bridge: {
        completion: async () => {
          await sleep(1500);
          return "slow answer";
        },
      },
    });
    const outcome = await manager.run({ cwd, code: 'call completion {"prompt":"x"}', timeoutSec: 1 });
    expect(outcome.status).toBe("ok");
    expect(stdoutOf(outcome)).toBe('"slow answer"');
  });

  it("counts a slow tool call against the timeout and aborts the handler's signal", async () => {
    let handlerSignal: AbortSignal | undefined;
    const manager = createManager({
      bridge: {
        tools: {
          slow: async (_args, context) => {
            handlerSignal = context.signal;
            await sleep(3000);
            return "late";
          },
        },
      },
    });
    const outcome = await manager.run({ cwd, code: 'call tool {"name":"slow","args":{}}', timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(handlerSignal?.aborted).toBe(true);
  });

  it("uses a call's own handlers instead of the manager's when given", async () => {
    const manager = createManager({ bridge: { completion: () => "manager" } });
    const call = manager.openCall({ cwd, bridge: { completion: () => "call" } });
    const outcome = await call.run({ code: "call completion {}" });
    await call.close();
    expect(stdoutOf(outcome)).toBe('"call"');
  });
});
