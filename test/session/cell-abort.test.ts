// The abort signal a kernel's cells take turns on: reused while it never aborted, never shared by two cells.
import { describe, expect, it } from "vitest";
import { CellAbortSlot } from "../../src/session/cell-abort.js";

describe("CellAbortSlot", () => {
  it("hands the next cell the same controller while none aborted", () => {
    const slot = new CellAbortSlot();
    const first = slot.take();
    slot.release(first);
    const second = slot.take();
    expect(second).toBe(first);
    expect(second.signal.aborted).toBe(false);
  });

  it("gives a fresh, unaborted controller after a cell was aborted", () => {
    const slot = new CellAbortSlot();
    const first = slot.take();
    first.abort();
    slot.release(first);
    const second = slot.take();
    expect(second).not.toBe(first);
    expect(second.signal.aborted).toBe(false);
  });

  it("never gives a held controller to a second cell, and ignores the release of one it did not hand out", () => {
    const slot = new CellAbortSlot();
    const held = slot.take();
    const other = slot.take();
    expect(other).not.toBe(held);
    other.abort();
    slot.release(other);
    expect(held.signal.aborted).toBe(false);
    expect(slot.take()).not.toBe(held);
    slot.release(held);
    expect(slot.take()).toBe(held);
  });
});
