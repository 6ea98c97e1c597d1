// `evalkit mcp`: charts a browser would draw reach the MCP client as image blocks (SVG, Vega-Lite, Altair), and a
// plotly figure without kaleido as its summary, through the real MCP SDK client over stdio.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCurrentLegPython } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { ALTAIR_CELL, PLOTLY_CELL, pngBlocks, SVG_CELL, VEGA_LITE_CELL } from "../tool/chart-cells.js";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

describe("evalkit mcp chart images", () => {
  it("returns an SVG and a Vega-Lite chart as PNG image content from the built server", async () => {
    const server = await startServer();
    const result = await callEval(server.client, [{ code: SVG_CELL }, { code: VEGA_LITE_CELL }]);
    expect(result.isError, textOf(result)).toBe(false);
    const sizes = pngBlocks(result.content as { type: string }[]);
    expect(sizes).toHaveLength(2);
    expect(sizes[0]).toEqual([120, 80]);
    expect(textOf(result)).toContain("Vega-Lite chart, drawn as PNG for the model");
  });

  const current = findCurrentLegPython();
  const skip =
    current === undefined
      ? "no current-library venv (run .ci/run: it makes .venv-current)"
      : librarySkipReason(current, ["altair", "plotly", "pandas"]);
  it.skipIf(skip !== undefined)(
    titleWithSkip("returns an Altair chart as an image and a plotly figure as its summary", skip),
    async () => {
      const server = await startServer({ python: current as string });
      const result = await callEval(server.client, [{ code: ALTAIR_CELL }, { code: PLOTLY_CELL }]);
      expect(result.isError, textOf(result)).toBe(false);
      expect(pngBlocks(result.content as { type: string }[])).toHaveLength(1);
      expect(textOf(result)).toContain("Plotly figure: 1 trace (bar); title 'Sales'.");
      expect(textOf(result)).not.toContain("Figure({");
    },
  );
});
