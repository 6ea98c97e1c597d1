// The protocol conformance suite: the same frame scripts run unchanged against every runner, driven at the raw
// NDJSON level, and every frame received is checked against src/protocol/ and the ordering rules.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireOrExplainSkip } from "../helpers/required.js";
import { RawRunner, type RunnerEvent } from "./raw-runner.js";
import {
  findPerlMissing,
  jsRuntime,
  perlRuntime,
  pythonRuntime,
  type RuntimeDescription,
} from "./runtimes.js";

// The third runner (test/fixtures/perl-runner.pl) proves docs/protocol.md is enough to write one.
const perlMissing = findPerlMissing();
requireOrExplainSkip("the Perl runner's conformance tests", perlMissing);
const RUNTIMES: RuntimeDescription[] = [pythonRuntime, jsRuntime, ...(perlMissing ? [] : [perlRuntime])];

function framesOf(events: RunnerEvent[]): Array<Record<string, unknown>> {
  return events.flatMap((event) => (event.kind === "frame" ? [event.frame] : []));
}

/** Stream text in the order it came, adjacent pieces of one stream joined. */
function streamsOf(events: RunnerEvent[]): Array<[string, string]> {
  const pieces: Array<[string, string]> = [];
  for (const event of events) {
    if (event.kind !== "text") continue;
    const last = pieces.at(-1);
    if (last && last[0] === event.name) last[1] += event.text;
    else pieces.push([event.name, event.text]);
  }
  return pieces;
}

/** The text/plain of a result or display frame ("" when there is none). */
function plainTextOf(frame: Record<string, unknown> | undefined): string {
  const bundle = frame?.bundle as Record<string, unknown> | undefined;
  return String(bundle?.["text/plain"] ?? "");
}

/**
 * The ordering rules of one cell's transcript (docs/protocol.md, "Ordering"): `started` first where the runtime
 * sends it, every frame carrying the cell's id, exactly one `done` and it is last, `result`/`error` before it,
 * and the execute request's nonce echoed on result, error and done where the runtime echoes it.
 */
function expectCellOrder(
  runtime: RuntimeDescription,
  request: Record<string, unknown>,
  events: RunnerEvent[],
) {
  const frames = framesOf(events);
  const cellFrames = frames.filter((frame) => frame.type !== "complete_reply");
  for (const frame of cellFrames) expect(frame.id, JSON.stringify(frame)).toBe(request.id);
  if (runtime.sendsStarted) expect(cellFrames[0]?.type).toBe("started");
  expect(cellFrames.filter((frame) => frame.type === "started").length).toBeLessThanOrEqual(1);
  expect(cellFrames.filter((frame) => frame.type === "done")).toHaveLength(1);
  expect(events.at(-1)?.kind === "frame" && events.at(-1)).toMatchObject({ frame: { type: "done" } });
  if (runtime.echoesNonce) {
    for (const frame of cellFrames.filter((f) => ["result", "error", "done"].includes(String(f.type)))) {
      expect(frame.nonce).toBe(request.nonce);
    }
  }
}

describe.each(RUNTIMES)("the $name runner", (runtime) => {
  let runner: RawRunner;
  let cwd: string;
  let cells = 0;
  const { snippets } = runtime;

  /** Runs one cell, checks its ordering rules, and returns its frames and streams. */
  async function run(code: string, options: { allowStdin?: boolean } = {}) {
    cells += 1;
    const request = runtime.executeFrame(`${runtime.name}-${cells}`, code, options);
    const events = await runner.runCell(request);
    expectCellOrder(runtime, request, events);
    const frames = framesOf(events);
    return { request, events, frames, done: frames.at(-1) as Record<string, unknown> };
  }

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "evalkit-conformance-"));
    runner = new RawRunner(runtime.spawn(cwd));
    await runner.waitForFrame((frame) => frame.type === "ready");
  });

  afterAll(async () => {
    await runner?.kill();
    rmSync(cwd, { recursive: true, force: true });
  });

  it("sends ready first, once, with its pid, protocol 1 and working directory", () => {
    const first = runner.events[0];
    expect(first?.kind).toBe("frame");
    const ready = (first as { frame: Record<string, unknown> }).frame;
    expect(ready).toMatchObject({ type: "ready", pid: runner.pid, protocol: 1 });
    expect(typeof ready.cwd).toBe("string");
    for (const field of runtime.readyFields) expect(typeof ready[field], field).toBe("string");
    expect(runner.frames.filter((frame) => frame.type === "ready")).toHaveLength(1);
    expect(runner.violations).toEqual([]);
  });

  it("delivers a cell's stdout and stderr in the order the cell wrote them, before done", async () => {
    const { done, events } = await run(snippets.streams);
    expect(streamsOf(events)).toEqual([
      ["stdout", "a\n"],
      ["stderr", "b\n"],
      ["stdout", "c\n"],
    ]);
    expect(done).toMatchObject({ status: "ok", cancelled: false });
    expect(runner.violations).toEqual([]);
  });

  it("sends a display and then its update under the same displayId", async () => {
    const { frames } = await run(snippets.displayUpdate);
    const displays = frames.filter((frame) => frame.type === "display");
    expect(displays).toHaveLength(2);
    expect(displays[0]).toMatchObject({ displayId: "d1", bundle: { "text/plain": "one" } });
    expect(displays[0]?.update).not.toBe(true);
    expect(displays[1]).toMatchObject({ displayId: "d1", update: true, bundle: { "text/plain": "two" } });
    expect(runner.violations).toEqual([]);
  });

  it("sends the value of the last expression as a result before an ok done with an execution count", async () => {
    const { frames, done } = await run(snippets.result);
    const results = frames.filter((frame) => frame.type === "result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ bundle: { "text/plain": "42" } });
    expect(done).toMatchObject({ status: "ok", cancelled: false });
    expect(typeof done.executionCount).toBe("number");
    if (results[0]?.executionCount !== undefined) expect(results[0].executionCount).toBe(done.executionCount);
    expect(runner.violations).toEqual([]);
  });

  it("sends an error with its name and a traceback before a done whose status is error", async () => {
    const { frames, done } = await run(snippets.error);
    const errors = frames.filter((frame) => frame.type === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ ename: snippets.errorName });
    expect((errors[0]?.traceback as string[] | undefined)?.length).toBeGreaterThan(0);
    expect(done).toMatchObject({ status: "error", cancelled: false });
    expect(runner.violations).toEqual([]);
  });

  it("ends a busy cell on interrupt with a cancelled done, and serves the next cell", async () => {
    cells += 1;
    const request = runtime.executeFrame(`${runtime.name}-${cells}`, snippets.busy);
    const from = runner.events.length;
    runner.send(request);
    if (runtime.sendsStarted)
      await runner.waitForFrame((frame) => frame.type === "started" && frame.id === request.id);
    else await new Promise((resolve) => setTimeout(resolve, 300));
    runtime.interrupt((frame) => runner.send(frame), runner.pid, String(request.id));
    const done = await runner.waitForFrame(
      (frame) => frame.type === "done" && frame.id === request.id,
      10_000,
    );
    expect(done).toMatchObject({ status: "error", cancelled: true });
    expectCellOrder(runtime, request, runner.events.slice(from));
    const next = await run(snippets.result);
    expect(next.frames.find((frame) => frame.type === "result")).toMatchObject({
      bundle: { "text/plain": "42" },
    });
    expect(runner.violations).toEqual([]);
  });

  it("makes a bridge call that the host answers with a reply, and hands the answer to the cell", async () => {
    cells += 1;
    const request = runtime.executeFrame(`${runtime.name}-${cells}`, snippets.bridgeCall);
    const from = runner.events.length;
    runner.send(request);
    const call = await runner.waitForFrame((frame) => frame.type === "call" && frame.id === request.id);
    expect(call).toMatchObject({ method: "completion", params: { prompt: "ping" } });
    runner.send({ type: "reply", callId: call.callId, ok: true, value: "pong" });
    await runner.waitForFrame((frame) => frame.type === "done" && frame.id === request.id);
    const events = runner.events.slice(from);
    expectCellOrder(runtime, request, events);
    const result = framesOf(events).find((frame) => frame.type === "result");
    expect(plainTextOf(result)).toContain("pong");
    expect(runner.violations).toEqual([]);
  });

  it("answers a completion request from the live namespace between cells", async () => {
    await run(snippets.define);
    runner.send({ type: "complete", id: `${runtime.name}-t1`, code: "conformance_v", cursor: 13 });
    const reply = await runner.waitForFrame(
      (frame) => frame.type === "complete_reply" && frame.id === `${runtime.name}-t1`,
    );
    expect(reply).toMatchObject({ start: 0 });
    expect(reply.matches).toContain("conformance_value");
    expect(runner.violations).toEqual([]);
  });

  it("counts the completion cursor and start in UTF-16 code units, as the host's strings do", async () => {
    const code = 'x = "\u{1F600}"; conformance_v'; // the emoji is two code units
    runner.send({ type: "complete", id: `${runtime.name}-t2`, code, cursor: code.length });
    const reply = await runner.waitForFrame(
      (frame) => frame.type === "complete_reply" && frame.id === `${runtime.name}-t2`,
    );
    expect(reply).toMatchObject({ start: code.length - "conformance_v".length });
    expect(reply.matches).toContain("conformance_value");
    expect(runner.violations).toEqual([]);
  });

  if (runtime.hasInput) {
    it("fails input() when the cell does not allow stdin, without asking the host", async () => {
      const { frames, done } = await run(snippets.readInput ?? "");
      expect(frames.some((frame) => frame.type === "input_request")).toBe(false);
      expect(frames.some((frame) => frame.type === "error")).toBe(true);
      expect(done).toMatchObject({ status: "error" });
      expect(runner.violations).toEqual([]);
    });

    it("asks the host with input_request when the cell allows stdin, and returns the input_reply", async () => {
      cells += 1;
      const request = runtime.executeFrame(`${runtime.name}-${cells}`, snippets.readInput ?? "", {
        allowStdin: true,
      });
      runner.send(request);
      const asked = await runner.waitForFrame(
        (frame) => frame.type === "input_request" && frame.id === request.id,
      );
      expect(asked).toMatchObject({ prompt: "name? ", password: false });
      runner.send({ type: "input_reply", id: String(request.id), value: "ada" });
      await runner.waitForFrame((frame) => frame.type === "done" && frame.id === request.id);
      const result = runner.frames.find((frame) => frame.type === "result" && frame.id === request.id);
      expect(plainTextOf(result)).toContain("ada");
      expect(runner.violations).toEqual([]);
    });
  }

  if (runtime.hasIsComplete) {
    it("tells incomplete input from complete input", async () => {
      runner.send({ type: "is_complete", id: `${runtime.name}-q1`, code: "if True:" });
      runner.send({ type: "is_complete", id: `${runtime.name}-q2`, code: "x = 1" });
      const open = await runner.waitForFrame((frame) => frame.id === `${runtime.name}-q1`);
      const closed = await runner.waitForFrame((frame) => frame.id === `${runtime.name}-q2`);
      expect(open).toMatchObject({ type: "is_complete_reply", status: "incomplete" });
      expect(closed).toMatchObject({ type: "is_complete_reply", status: "complete" });
      expect(runner.violations).toEqual([]);
    });
  }

  it("answers a frame type it does not know with protocol_error, and keeps serving", async () => {
    const before = runner.frames.length;
    runner.sendUnchecked('{"type":"frobnicate","id":"f1"}');
    const complaint = await runner.waitForFrame(
      (frame) => frame.type === "protocol_error" && runner.frames.indexOf(frame) >= before,
    );
    expect(String(complaint.reason)).toContain("frobnicate");
    const next = await run(snippets.result);
    expect(next.frames.find((frame) => frame.type === "result")).toMatchObject({
      bundle: { "text/plain": "42" },
    });
    expect(runner.violations).toEqual([]);
  });

  it("sent nothing of a cell after its done, over the whole session", () => {
    const ended = new Set<unknown>();
    const late: Array<Record<string, unknown>> = [];
    for (const frame of runner.frames) {
      if (frame.id !== undefined && ended.has(frame.id)) late.push(frame);
      if (frame.type === "done") ended.add(frame.id);
    }
    expect(ended.size).toBeGreaterThanOrEqual(8);
    expect(late).toEqual([]);
  });

  it("exits with status 0 on an exit frame, and every frame it sent matched the schema", async () => {
    runner.send({ type: "exit" });
    const exit = await runner.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(runner.violations).toEqual([]);
  });

  it("exits by itself when the host closes its request channel", async () => {
    const alone = new RawRunner(runtime.spawn(cwd));
    try {
      await alone.waitForFrame((frame) => frame.type === "ready");
      alone.closeInput();
      const gone = await Promise.race([
        alone.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      expect(gone).toBe(true);
    } finally {
      await alone.kill();
    }
  });
});
