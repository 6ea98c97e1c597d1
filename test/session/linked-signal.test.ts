// Unit tests of linkSignals (AbortSignal.any semantics plus an unlink that leaves the sources clean) and onAbort.
import { describe, expect, it, vi } from "vitest";
import { linkSignals, onAbort } from "../../src/session/linked-signal.js";

describe("linkSignals", () => {
  it("aborts with the reason of the first source to abort", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, undefined, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    b.abort("b first");
    a.abort("a second");
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("b first");
  });

  it("is aborted at once when a source already is", () => {
    const linked = linkSignals([new AbortController().signal, AbortSignal.abort("done")]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("done");
  });

  it("stops following its sources after unlink", () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    linked.unlink();
    a.abort("late");
    expect(linked.signal.aborted).toBe(false);
  });
});

describe("onAbort (one listener per signal for every cell)", () => {
  it("calls each registered listener once on abort, never a removed one, and none registered after", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const removeA = onAbort(controller.signal, () => calls.push("a"));
    onAbort(controller.signal, () => calls.push("b"));
    const removeC = onAbort(controller.signal, () => calls.push("c"));
    removeC();
    removeA();
    removeA();
    onAbort(controller.signal, () => calls.push("d"));
    controller.abort();
    controller.abort();
    expect(calls).toEqual(["b", "d"]);
  });

  it("keeps calling the other listeners when one throws, and reports the error", async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const reported = new Promise<unknown>((resolve) => process.once("uncaughtException", resolve));
    onAbort(controller.signal, () => {
      throw new Error("listener failed");
    });
    onAbort(controller.signal, () => calls.push("second"));
    controller.abort();
    expect(calls).toEqual(["second"]);
    expect(String(await reported)).toMatch(/listener failed/);
  });

  it("serves many cells in turn on one long-lived signal without adding a listener each time", () => {
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, "addEventListener");
    let fired = 0;
    for (let i = 0; i < 1000; i++) onAbort(controller.signal, () => fired++)();
    const last = onAbort(controller.signal, () => fired++);
    expect(added).toHaveBeenCalledTimes(1);
    controller.abort();
    expect(fired).toBe(1);
    last();
  });
});
