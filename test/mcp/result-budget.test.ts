// The MCP message budget: small results pass untouched; big display data, streams and images give way to notes.
import { describe, expect, it } from "vitest";
import type { CellResult, EvalDetails } from "../../src/contracts/cell-result.js";
import type { CellOutput } from "../../src/contracts/outputs.js";
import { fitDetailsToBudget, fitImagesToBudget, fitTextToBudget } from "../../src/mcp/result-budget.js";
import { boundErrorInfo } from "../../src/tool/details-redaction.js";

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

describe("the last resorts of the budget", () => {
  it("keeps the first and last outputs of a cell with very many, and says how many went", () => {
    const outputs: CellOutput[] = Array.from({ length: 300_000 }, (_, i) => ({
      type: "display" as const,
      data: { "text/plain": String(i) },
    }));
    const fitted = fitDetailsToBudget(detailsWith(outputs));
    expect(JSON.stringify(fitted).length).toBeLessThan(1024 * 1024);
    const kept = fitted.cells[0]?.outputs ?? [];
    expect(kept).toHaveLength(101);
    expect(kept[50]).toMatchObject({
      type: "stream",
      text: expect.stringContaining("299900 outputs left out"),
    });
    expect(kept.at(-1)).toMatchObject({ data: { "text/plain": "299999" } });
  });

  it("replaces display metadata that is too large", () => {
    const metadata = { "text/plain": { m: "x".repeat(2_000_000) } };
    const fitted = fitDetailsToBudget(
      detailsWith([{ type: "display", data: { "text/plain": "r" }, metadata }]),
    );
    expect(JSON.stringify(fitted).length).toBeLessThan(1024 * 1024);
    expect(fitted.cells[0]?.outputs[0]).toMatchObject({ data: { "text/plain": "r" } });
  });

  it("shrinks a traceback of half a million lines in errors and error outputs", () => {
    const traceback = Array.from({ length: 500_000 }, (_, i) => `line ${i}`);
    const details = detailsWith([{ type: "error", ename: "X", evalue: "y".repeat(200_000), traceback }]);
    const cell = details.cells[0];
    if (cell) cell.error = { ename: "X", evalue: "y".repeat(200_000), traceback };
    const fitted = fitDetailsToBudget(details);
    expect(JSON.stringify(fitted).length).toBeLessThan(1024 * 1024);
    expect(fitted.cells[0]?.error?.traceback.at(-1)).toBe("line 499999");
  });

  it("leaves the model's text blocks whole up to the budget and shortens the rest", () => {
    const blocks = Array.from({ length: 4 }, () => ({ type: "text" as const, text: "t".repeat(3000) }));
    const fitted = fitTextToBudget(blocks, 7000);
    expect(fitted.map((b) => (b.type === "text" ? b.text.slice(0, 1024).length : 0))).toEqual([
      1024, 1024, 1024, 1024,
    ]);
    expect(fitted.slice(0, 2)).toEqual(blocks.slice(0, 2));
    expect(fitted[2]).toMatchObject({ text: expect.stringContaining("left out of this MCP result") });
    expect(fitted[3]).toMatchObject({ text: expect.stringContaining("left out of this MCP result") });
  });
});

describe("boundErrorInfo", () => {
  it("cuts a very long traceback to its first and last 100 lines with a count of the rest", () => {
    const traceback = Array.from({ length: 10_000 }, (_, i) => `frame ${i}`);
    const bound = boundErrorInfo({ ename: "E", evalue: "v", traceback }, (t) => t);
    expect(bound.traceback).toHaveLength(201);
    expect(bound.traceback[100]).toContain("9800 traceback lines left out");
    expect(bound.traceback.at(-1)).toBe("frame 9999");
  });
});
