// Progress notifications from the eval tool's updates: increasing values, throttling, heartbeats, silence after stop.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CellResult } from "../../src/contracts/cell-result.js";
import { createProgressReporter, lastLineOf, type ProgressParams } from "../../src/mcp/progress-reporter.js";
import type { EvalProgress } from "../../src/tool/run-call.js";

function finishedCell(index: number): CellResult {
  return {
    index,
    language: "py",
    status: "ok",
    executionCount: index + 1,
    durationMs: 1,
    text: "",
    outputs: [],
  };
}

function update(done: number, running?: { index: number; text: string; elapsedMs: number }): EvalProgress {
  const progress: EvalProgress = {
    content: [],
    details: { ok: false, cells: Array.from({ length: done }, (_, i) => finishedCell(i)) },
  };
  if (running) progress.running = { ...running, language: "py" };
  return progress;
}

describe("progress reporter", () => {
  let sent: ProgressParams[];
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const make = () =>
    createProgressReporter({
      progressToken: "tok",
      totalCells: 2,
      send: (params) => sent.push(params),
      heartbeatMs: 2000,
      minIntervalMs: 250,
      now: () => Date.now(),
    });

  it("reports cell starts and ends at once, with strictly increasing values against the cell count", () => {
    const reporter = make();
    reporter.update(update(0, { index: 0, text: "", elapsedMs: 0 }));
    reporter.update(update(1));
    reporter.update(update(1, { index: 1, text: "", elapsedMs: 0 }));
    reporter.update(update(2));
    reporter.stop();
    expect(sent.map((p) => p.message)).toEqual([
      "cell 1/2 (python) running 0.0s",
      "1/2 cells done",
      "cell 2/2 (python) running 0.0s",
      "2/2 cells done",
    ]);
    expect(sent.every((p) => p.total === 2 && p.progressToken === "tok")).toBe(true);
    const values = sent.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(values.at(-1)).toBe(2);
  });

  it("throttles output updates but always delivers the latest line", () => {
    const reporter = make();
    reporter.update(update(0, { index: 0, text: "", elapsedMs: 0 }));
    reporter.update(update(0, { index: 0, text: "a\n", elapsedMs: 10 }));
    reporter.update(update(0, { index: 0, text: "a\nb\n", elapsedMs: 20 }));
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(250);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.message).toMatch(/: b$/);
    reporter.stop();
  });

  it("sends heartbeats while a silent cell runs and nothing after stop", () => {
    const reporter = make();
    reporter.update(update(0, { index: 0, text: "", elapsedMs: 0 }));
    vi.advanceTimersByTime(4100);
    expect(sent.length).toBe(3);
    expect(sent[2]?.message).toBe("cell 1/2 (python) running 4.0s");
    expect(sent[2]!.progress).toBeLessThan(1);
    reporter.stop();
    reporter.update(update(1));
    vi.advanceTimersByTime(10_000);
    expect(sent.length).toBe(3);
  });

  it("keeps the last non-empty line, shortened", () => {
    expect(lastLineOf("one\ntwo\n\n")).toBe("two");
    expect(lastLineOf("")).toBe("");
    expect(lastLineOf("x".repeat(500))).toHaveLength(200);
  });
});
