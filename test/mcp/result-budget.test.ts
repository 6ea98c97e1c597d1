// The MCP message budget: small results pass untouched; big display data, streams and images give way to notes.
import { describe, expect, it } from "vitest";
import type { CellResult, EvalDetails } from "../../src/contracts/cell-result.js";
import type { CellOutput } from "../../src/contracts/outputs.js";
import { fitDetailsToBudget, fitImagesToBudget } from "../../src/mcp/result-budget.js";

function detailsWith(outputs: CellOutput[]): EvalDetails {
  const cell: CellResult = {
    index: 0,
    language: "py",
    status: "ok",
    executionCount: 1,
    durationMs: 1,
    text: "shown",
    outputs,
  };
  return { ok: true, cells: [cell] };
}

describe("fitDetailsToBudget", () => {
  it("returns details under the budget as the very same object", () => {
    const details = detailsWith([{ type: "result", data: { "text/plain": "2" } }]);
    expect(fitDetailsToBudget(details, 1000)).toBe(details);
  });

  it("replaces large values with a note naming their size, keeping small ones and the original intact", () => {
    const html = "h".repeat(200_000);
    const details = detailsWith([
      { type: "display", data: { "text/html": html, "text/plain": "<HTML object>" } },
      { type: "stream", name: "stdout", text: "small" },
    ]);
    const fitted = fitDetailsToBudget(details, 100_000);
    const [display, stream] = fitted.cells[0]?.outputs ?? [];
    expect(display).toMatchObject({ type: "display", data: { "text/plain": "<HTML object>" } });
    expect(display?.type === "display" && display.data["text/html"]).toMatch(/^…\[195\.3 KB left out/);
    expect(stream).toEqual({ type: "stream", name: "stdout", text: "small" });
    expect(details.cells[0]?.outputs[0]).toMatchObject({ data: { "text/html": html } });
    expect(JSON.stringify(fitted).length).toBeLessThan(100_000);
  });

  it("falls back to a small limit when many medium values together exceed the budget", () => {
    const outputs: CellOutput[] = Array.from({ length: 100 }, () => ({
      type: "display" as const,
      data: { "application/json": { rows: "r".repeat(10_000) } },
    }));
    const fitted = fitDetailsToBudget(detailsWith(outputs), 200_000);
    expect(JSON.stringify(fitted).length).toBeLessThan(200_000);
  });
});

describe("fitImagesToBudget", () => {
  it("keeps images in order until the budget, then says what was left out", () => {
    const image = (n: number) => ({ type: "image" as const, data: "A".repeat(n), mimeType: "image/png" });
    const fitted = fitImagesToBudget([{ type: "text", text: "t" }, image(600), image(600), image(300)], 1000);
    expect(fitted.map((block) => block.type)).toEqual(["text", "image", "text", "image"]);
    expect(fitted[2]).toMatchObject({
      type: "text",
      text: expect.stringContaining("image/png image of 450 B left out"),
    });
  });
});
