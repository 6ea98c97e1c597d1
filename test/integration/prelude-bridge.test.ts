// The prelude's host bridge in a real Python kernel: tool/completion/agent, parallel fan-out, errors, interrupts.

import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { DisplayOutput, KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import type { BridgeCall, ExecuteOptions, ExecuteOutcome } from "../../src/kernel/kernel.js";
import type { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import { HostBridge } from "../../src/session/bridge-handlers.js";
import { runCell } from "../../src/session/cell-runner.js";
import { startKernel } from "../helpers/python.js";

function stdoutOf(outputs: KernelOutput[]): string {
  return outputs.map((o) => (o.type === "stream" && o.name === "stdout" ? o.text : "")).join("");
}

function expectOk(outcome: ExecuteOutcome): void {
  if (outcome.status !== "ok") {
    throw new Error(`cell failed: ${outcome.error?.traceback.join("\n") ?? JSON.stringify(outcome.outputs)}`);
  }
}

async function evaluate(
  kernel: PythonKernel,
  expression: string,
  options: ExecuteOptions = {},
): Promise<unknown> {
  const outcome = await kernel.execute(`import json as _j\nprint(_j.dumps(${expression}))`, options);
  expectOk(outcome);
  const lines = stdoutOf(outcome.outputs).trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "null");
}

/** An onCall that records every call and answers with `answer`. */
function recorder(answer: (call: BridgeCall) => unknown | Promise<unknown>) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const onCall = async (call: BridgeCall) => {
    calls.push({ method: call.method, params: call.params });
    return answer(call);
  };
  return { calls, onCall };
}

describe("the prelude's host helpers in a real kernel", () => {
  it("sends completion() arguments to the host and returns its text", async () => {
    const kernel = await startKernel();
    const host = recorder(() => "Paris");
    expect(
      await evaluate(kernel, "completion('Capital of France?', model='small', system='one word')", {
        onCall: host.onCall,
      }),
    ).toBe("Paris");
    expect(host.calls).toEqual([
      { method: "completion", params: { prompt: "Capital of France?", model: "small", system: "one word" } },
    ]);
  });

  it("parses completion() answers as JSON when a schema is given, and quotes a non-JSON answer", async () => {
    const kernel = await startKernel();
    const schema = "{'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']}";
    expect(
      await evaluate(kernel, `completion('x', schema=${schema})`, {
        onCall: async () => '{"city": "Paris"}',
      }),
    ).toEqual({
      city: "Paris",
    });
    const bad = await kernel.execute(`completion('x', schema=${schema})`, {
      onCall: async () => "I think Paris",
    });
    expect(bad.error?.ename).toBe("AnswerError");
    expect(bad.error?.evalue).toContain("I think Paris");
    expect(
      await evaluate(
        kernel,
        "issubclass(__import__('evalkit_kernel.prelude.schema').prelude.schema.AnswerError, ValueError)",
      ),
    ).toBe(true);
  });

  it("returns agent() text, parsed data, or a handle dict built from the host's reply", async () => {
    const kernel = await startKernel();
    const host = recorder((call) =>
      call.params.handle
        ? { text: '{"files": 3}', output: "transcript", handle: "agent://a7", id: "a7", agent: "explore" }
        : "3 files",
    );
    expect(
      await evaluate(kernel, "agent('count', agent='explore', label='counting')", { onCall: host.onCall }),
    ).toBe("3 files");
    expect(
      await evaluate(kernel, "agent('count', handle=True, schema={'type': 'object'})", {
        onCall: host.onCall,
      }),
    ).toEqual({
      text: '{"files": 3}',
      output: "transcript",
      handle: "agent://a7",
      id: "a7",
      agent: "explore",
      data: { files: 3 },
    });
    expect(host.calls[0]).toEqual({
      method: "agent",
      params: { prompt: "count", agent: "explore", label: "counting" },
    });
    expect(host.calls[1]?.params.handle).toBe(true);
  });

  it("calls host tools by attribute and by item through the embedder's registry", async () => {
    const kernel = await startKernel();
    const bridge = new HostBridge({
      tools: {
        add: (args) => (args.a as number) + (args.b as number),
        "web-fetch": (args) => ({ url: args.url, status: 200 }),
      },
    });
    const cell = new AbortController();
    const onCall = bridge.createCallHandler({ signal: cell.signal, pauseTimeout: () => () => undefined });
    expect(await evaluate(kernel, "tool.add(a=2, b=3)", { onCall })).toBe(5);
    expect(await evaluate(kernel, "tool['web-fetch']({'url': 'https://x'})", { onCall })).toEqual({
      url: "https://x",
      status: 200,
    });
    const missing = await kernel.execute("tool.nope()", { onCall });
    expect(missing.error?.ename).toBe("BridgeError");
    expect(missing.error?.evalue).toContain("no host handler registered for tool.nope()");
    expect(missing.error?.evalue).toContain("add, web-fetch");
  });

  it("runs 8 completion() calls concurrently with parallel() and keeps input order", async () => {
    const kernel = await startKernel();
    let inFlight = 0;
    let peak = 0;
    const onCall = async (call: BridgeCall) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Later prompts answer sooner, so completion order is the reverse of input order.
      const index = Number(String(call.params.prompt).slice(1));
      await sleep(200 + (7 - index) * 10);
      inFlight--;
      return `answer ${index}`;
    };
    const started = performance.now();
    const result = await evaluate(kernel, "parallel([lambda i=i: completion('q%d' % i) for i in range(8)])", {
      onCall,
    });
    const elapsed = performance.now() - started;
    expect(result).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `answer ${i}`));
    expect(peak).toBe(8);
    expect(elapsed).toBeLessThan(1000); // serial would take over 1600 ms
  });

  it("works with and without await", async () => {
    const kernel = await startKernel();
    const onCall = async (call: BridgeCall) => `<${String(call.params.prompt)}>`;
    expect(
      await evaluate(kernel, "await parallel([lambda: completion('a'), lambda: completion('b')])", {
        onCall,
      }),
    ).toEqual(["<a>", "<b>"]);
    expectOk(
      await kernel.execute("r = parallel([lambda: completion('c')])\nassert r == ['<c>'], r", { onCall }),
    );
  });

  it("raises the lowest-index exception of parallel()", async () => {
    const kernel = await startKernel();
    const onCall = async (call: BridgeCall) => {
      const prompt = String(call.params.prompt);
      if (prompt === "slow-fail") {
        await sleep(300);
        throw new Error("first failure");
      }
      if (prompt === "fast-fail") throw new Error("second failure");
      return prompt;
    };
    const outcome = await kernel.execute(
      "parallel([lambda: completion('ok'), lambda: completion('slow-fail'), lambda: completion('fast-fail')])",
      { onCall },
    );
    expect(outcome.error?.ename).toBe("BridgeError");
    expect(outcome.error?.evalue).toContain("first failure");
  });

  it("passes pipeline() items through each stage in waves", async () => {
    const kernel = await startKernel();
    const onCall = async (call: BridgeCall) => String(call.params.prompt).toUpperCase();
    expect(
      await evaluate(kernel, "pipeline(['a', 'b'], lambda x: completion(x), lambda y: y + '!')", { onCall }),
    ).toEqual(["A!", "B!"]);
  });

  it("fails at once with a clear error when no handler is registered", async () => {
    const kernel = await startKernel();
    for (const options of [{}, { onCall: new HostBridge({}).createCallHandler(neverEnding()) }]) {
      const started = performance.now();
      const outcome = await kernel.execute("completion('hello')", options);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(outcome.error?.ename).toBe("BridgeError");
      expect(outcome.error?.evalue).toContain("no host handler registered for completion()");
    }
  });

  it("aborts the in-flight handler's signal when the cell is interrupted", async () => {
    const kernel = await startKernel();
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const onCall = (call: BridgeCall) =>
      new Promise<unknown>((_, reject) => {
        handlerSignal = call.signal;
        call.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        controller.abort();
      });
    const outcome = await kernel.execute("agent('wait forever')", { onCall, signal: controller.signal });
    expect(outcome.cancelled).toBe(true);
    expect(handlerSignal?.aborted).toBe(true);
    expectOk(await kernel.execute("1 + 1"));
  });

  it("aborts every handler of an interrupted parallel() fan-out", async () => {
    const kernel = await startKernel();
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const onCall = (call: BridgeCall) =>
      new Promise<unknown>((_, reject) => {
        signals.push(call.signal);
        call.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        if (signals.length === 4) controller.abort();
      });
    const outcome = await kernel.execute("parallel([lambda: completion('x') for _ in range(4)])", {
      onCall,
      signal: controller.signal,
    });
    expect(outcome.cancelled).toBe(true);
    expect(signals.map((s) => s.aborted)).toEqual([true, true, true, true]);
    expectOk(await kernel.execute("1 + 1"));
  });

  it("does not time a cell out while agent() waits on the host, but does for a busy loop after it", async () => {
    const kernel = await startKernel();
    const bridge = new HostBridge({
      agent: async () => {
        await sleep(1600);
        return "slow but fine";
      },
    });
    const base = {
      kernel,
      timing: { timeoutSec: 1, interruptGraceMs: 3000 },
      retainOutputs: true,
      callerSignals: [],
      disposeSignal: new AbortController().signal,
      bridge,
    };
    const slow = await runCell({ ...base, code: "print(agent('take your time'))" });
    expect(slow.kind).toBe("finished");
    if (slow.kind !== "finished") return;
    expect(slow.outcome.status).toBe("ok");
    expect(stdoutOf(slow.outcome.outputs)).toContain("slow but fine");
    const busy = await runCell({ ...base, code: "agent('x')\nwhile True: pass" });
    expect(busy.kind === "finished" && busy.outcome.status).toBe("timeout");
  });

  it("emits start and done status events around host calls", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute("tool.ping()", { onCall: async () => "pong" });
    const events = outcome.outputs
      .filter((o): o is DisplayOutput => o.type === "display")
      .map((o) => o.data[STATUS_MIME] as Record<string, unknown>);
    expect(events.map((e) => [e.op, e.state, e.name])).toEqual([
      ["tool", "start", "ping"],
      ["tool", "done", "ping"],
    ]);
  });
});

function neverEnding() {
  return { signal: new AbortController().signal, pauseTimeout: () => () => undefined };
}
