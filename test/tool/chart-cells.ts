// Cells that show charts, shared by the tool's and the MCP server's chart tests, and a reader of PNG image blocks.
import { expect } from "vitest";

/** Cells that draw charts on any interpreter (evalkit's display() and SVG need no library). */
export const SVG_CELL =
  'SVG(\'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80">' +
  '<rect width="120" height="80" fill="steelblue"/></svg>\')';
export const VEGA_LITE_CELL = `spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
  "data": {"values": [{"a": "A", "b": 28}, {"a": "B", "b": 55}]}, "mark": "bar",
  "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}
display({"application/vnd.vegalite.v5+json": spec, "text/plain": "<VegaLite 5 object>"}, raw=True)`;
export const ALTAIR_CELL =
  "import altair as alt, pandas as pd\n" +
  "alt.Chart(pd.DataFrame({'a': list('ABC'), 'b': [3, 7, 5]}), title='Counts').mark_bar().encode(x='a', y='b')";
export const PLOTLY_CELL = "import plotly.express as px\npx.bar(x=['a', 'b'], y=[1, 3], title='Sales')";

type Block = { type: string; data?: string; mimeType?: string; text?: string };

/** [width, height] of each PNG image block. */
export function pngBlocks(content: readonly Block[]): [number, number][] {
  return content
    .filter((block) => block.type === "image")
    .map((block) => {
      expect(block.mimeType).toBe("image/png");
      const bytes = Buffer.from(block.data ?? "", "base64");
      expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
      return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    });
}
