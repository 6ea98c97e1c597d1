// Output between JS cells waits for the next cell within a bound; what the bound drops is announced, not lost silently.

import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { CellRecord } from "../../../src/kernel/client/cell-record.js";
import { STRAY_LIMIT_CHARS, StrayOutput } from "../../../src/kernel/client/stray-output.js";

function recordSeeing(seen: KernelOutput[]): CellRecord {
  return new CellRecord("c1", { onOutput: (output) => seen.push(output) });
}

describe("StrayOutput", () => {
  it("hands what came between cells to the next cell, in order, then starts over", () => {
    const stray = new StrayOutput();
    stray.keep({ type: "stream", name: "stdout", text: "tick\n" });
    stray.keep({ type: "display", data: { "text/plain": "shown" } });
    const seen: KernelOutput[] = [];
    stray.moveInto(recordSeeing(seen));
    expect(seen).toEqual([
      { type: "stream", name: "stdout", text: "tick\n" },
      { type: "display", data: { "text/plain": "shown" } },
    ]);
    const later: KernelOutput[] = [];
    stray.moveInto(recordSeeing(later));
    expect(later).toEqual([]);
  });

  it("keeps output up to the bound and announces what it dropped before what it kept", () => {
    const stray = new StrayOutput();
    const kept = "x".repeat(STRAY_LIMIT_CHARS - 10);
    stray.keep({ type: "stream", name: "stdout", text: kept });
    stray.keep({ type: "stream", name: "stdout", text: "y".repeat(20) });
    // A display counts at least 1024 characters, so a flood of small displays is bounded too.
    stray.keep({ type: "display", data: { "text/plain": "z" } });
    const seen: KernelOutput[] = [];
    stray.moveInto(recordSeeing(seen));
    expect(seen).toHaveLength(2);
    const [notice, first] = seen;
    expect(notice).toMatchObject({ type: "stream", name: "stderr" });
    expect(notice?.type === "stream" && notice.text).toContain("1,044 characters");
    expect(first).toEqual({ type: "stream", name: "stdout", text: kept });
  });
});
