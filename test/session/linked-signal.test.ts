// Unit tests of linkSignals: AbortSignal.any semantics plus an unlink that leaves the sources clean.
import { describe, expect, it } from "vitest";
import { linkSignals } from "../../src/session/linked-signal.js";

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
