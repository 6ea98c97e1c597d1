// Display retention: a count and size budget per cell, updates folded in place and clears compacted past it,
// so the final state stays what a notebook would show.
import { describe, expect, it } from "vitest";
import type { CellOutput } from "../../../src/contracts/outputs.js";
import { DisplayBudget } from "../../../src/output/display/display-budget.js";
import { DisplayRetention } from "../../../src/output/display/display-retention.js";
import { applyDisplayUpdates } from "../../../src/output/display/display-updates.js";

const display = (text: string, extra: Partial<CellOutput> = {}): CellOutput =>
  ({ type: "display", data: { "text/plain": text }, ...extra }) as CellOutput;

const shownText = (outputs: CellOutput[]) =>
  applyDisplayUpdates(outputs).map((o) => (o.type === "display" ? o.data["text/plain"] : o.type));

describe("DisplayRetention", () => {
  it("keeps displays within the size budget and counts the rest", () => {
    const retention = new DisplayRetention<CellOutput>([], new DisplayBudget(1000, 100));
    for (let i = 0; i < 50; i++) retention.keep(display(`${i}`.padEnd(100, ".")));
    expect(retention.outputs.length).toBeLessThan(10);
    expect(retention.budget.dropped).toBe(50 - retention.outputs.length);
    expect(retention.budget.describe("details.outputs")).toMatch(
      /^\d+ displays \([\d,]+ characters\) past the per-cell budget of 100 displays \/ 0 MiB not kept in details.outputs$/,
    );
  });

  it("keeps the count bounded whatever the sizes", () => {
    const retention = new DisplayRetention<CellOutput>([], new DisplayBudget(1e9, 20));
    for (let i = 0; i < 10_000; i++) retention.keep(display(`${i}`));
    expect(retention.outputs).toHaveLength(20);
    expect(retention.budget.dropped).toBe(9_980);
  });

  it("applies updates past the budget in place, so the final state is the last update", () => {
    const all: CellOutput[] = [display("start", { displayId: "bar" })];
    const retention = new DisplayRetention<CellOutput>([], new DisplayBudget(10_000, 5));
    retention.keep(all[0]!);
    for (let i = 1; i <= 1000; i++) {
      const update = display(`step ${i}`, { displayId: "bar", update: true });
      all.push(update);
      retention.keep(update);
    }
    expect(retention.outputs.length).toBeLessThanOrEqual(5);
    expect(shownText(retention.outputs)).toEqual(shownText(all));
    expect(shownText(retention.outputs)).toEqual(["step 1000"]);
  });

  it("shows a stand-in for a display with an id past the budget, and for an update too large to keep", () => {
    const retention = new DisplayRetention<CellOutput>([], new DisplayBudget(300, 10));
    retention.keep(display("x".repeat(190)));
    retention.keep(display("a", { displayId: "bar" }));
    retention.keep(display("z".repeat(500), { displayId: "bar", update: true }));
    retention.keep(display("y".repeat(500), { displayId: "late" }));
    const shown = shownText(retention.outputs).map(String);
    expect(shown).toHaveLength(3);
    expect(shown[0]).toBe("x".repeat(190));
    expect(shown[1]).toMatch(/^\[display "bar": 526 characters past the cell's display budget/);
    expect(shown[2]).toMatch(/^\[display "late": 526 characters past the cell's display budget/);
  });

  it("drops what a clear_output hides when the budget is full, keeping status events", () => {
    const retention = new DisplayRetention<CellOutput>([], new DisplayBudget(1e9, 4));
    retention.keep({ type: "status", event: { op: "phase", title: "load" } });
    for (let i = 0; i < 10; i++) retention.keep(display(`${i}`));
    retention.keep({ type: "clear_output", wait: false });
    retention.keep(display("after"));
    expect(retention.outputs.map((o) => o.type)).toEqual(["status", "clear_output", "display"]);
    expect(shownText(retention.outputs)).toEqual(["status", "after"]);
  });
});
