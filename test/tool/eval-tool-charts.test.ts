// What a person sees, the model sees: SVG, Vega-Lite/Altair charts as PNG image blocks, plotly figures as a short
// summary, progress bars as their final state, through the eval tool's content.
import { afterEach, describe, expect, it } from "vitest";
import { readArtifact } from "../../src/output/artifacts/artifact-read.js";
import { DEBIAN_PYTHON, findCurrentLegPython } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { ALTAIR_CELL, PLOTLY_CELL, pngBlocks, SVG_CELL, VEGA_LITE_CELL } from "./chart-cells.js";
import { cleanupTools, makeTempDir, makeTool, textOf } from "./tool-helpers.js";

afterEach(cleanupTools);

describe("charts reach the model as images", () => {
  it("sends an SVG display as a PNG image block of the SVG's size", async () => {
    const result = await makeTool().execute({ cells: [{ code: SVG_CELL }] });
    expect(pngBlocks(result.content)).toEqual([[120, 80]]);
    // details keep the SVG exactly as the kernel sent it
    const output = result.details.cells[0]?.outputs.find((o) => o.type === "result");
    expect(output && "data" in output ? Object.keys(output.data).sort() : []).toEqual([
      "image/svg+xml",
      "text/plain",
    ]);
  });

  it("draws a Vega-Lite display to a PNG image block and names it in the text", async () => {
    const result = await makeTool().execute({ cells: [{ code: VEGA_LITE_CELL }] });
    const [size] = pngBlocks(result.content);
    expect(size?.[1]).toBeGreaterThan(200); // Vega-Lite's default 200 px plot height, plus the axes
    expect(textOf(result)).toContain("[image 1: Vega-Lite chart, drawn as PNG for the model]");
  });

  const mpl = librarySkipReason(DEBIAN_PYTHON, ["matplotlib"]);
  it.skipIf(mpl !== undefined)(
    titleWithSkip("scales a figure too large for models down and keeps the full PNG as an artifact", mpl),
    async () => {
      const artifactsDir = makeTempDir("chart-artifacts");
      const tool = makeTool({ python: DEBIAN_PYTHON, artifactsDir });
      const code =
        "import matplotlib.pyplot as plt\nplt.figure(figsize=(24, 6), dpi=100)\nplt.plot([1, 3, 2]);";
      const result = await tool.execute({ cells: [{ code }] });
      const [size] = pngBlocks(result.content);
      expect(size?.[0]).toBe(1568);
      const notice = result.details.cells[0]?.notices?.find((n) => n.startsWith("image 1 ("));
      expect(notice).toMatch(
        /was scaled to 1568x\d+ for the model; the full image \(image\/png\): artifact:\/\//,
      );
      const uri = /artifact:\/\/[A-Za-z0-9_-]+/.exec(notice ?? "")?.[0] as string;
      const output = result.details.cells[0]?.outputs.find((o) => o.type === "display");
      const original = output && "data" in output ? String(output.data["image/png"]) : "";
      const page = await readArtifact(uri, { dir: artifactsDir, limit: 16 * 1024 * 1024 });
      expect(Buffer.from(page.bytes).toString("base64")).toBe(original);
    },
  );

  it("sends nothing more for cells without charts", async () => {
    const result = await makeTool().execute({ cells: [{ code: "print('plain')" }] });
    expect(result.content.filter((block) => block.type === "image")).toEqual([]);
  });

  const current = findCurrentLegPython();
  const skip =
    current === undefined
      ? "no current-library venv (run .ci/run: it makes .venv-current)"
      : librarySkipReason(current, ["altair", "plotly", "tqdm", "rich", "pandas"]);
  if (current === undefined && process.env.EVALKIT_REQUIRE_PYTHON_LIBS === "1") {
    it("has the current-library venv CI makes", () => {
      throw new Error("no .venv-current: .ci/run makes it");
    });
  }
  it.skipIf(skip !== undefined)(
    titleWithSkip("draws an Altair chart as Jupyter would show it", skip),
    async () => {
      const result = await makeTool({ python: current as string }).execute({
        cells: [{ code: ALTAIR_CELL }],
      });
      expect(result.details.ok, textOf(result)).toBe(true);
      expect(pngBlocks(result.content)).toHaveLength(1);
      expect(textOf(result)).toContain("alt.Chart(...)");
    },
  );

  it.skipIf(skip !== undefined)(
    titleWithSkip("shows a plotly figure without kaleido as a short summary, never its JSON", skip),
    async () => {
      const result = await makeTool({ python: current as string }).execute({
        cells: [{ code: PLOTLY_CELL }],
      });
      const text = textOf(result);
      expect(text).toContain("Plotly figure: 1 trace (bar); title 'Sales'.");
      expect(text).not.toContain("Figure({");
      expect(text.length).toBeLessThan(600);
    },
  );

  it.skipIf(skip !== undefined)(
    titleWithSkip("shows tqdm and rich progress bars as their final state between what was printed", skip),
    async () => {
      const code =
        "from tqdm import tqdm\nfrom rich.progress import track\nprint('start')\n" +
        "for i in tqdm(range(2000), mininterval=0):\n    pass\n" +
        "for i in track(range(20), description='Working'):\n    pass\nprint('end')";
      const result = await makeTool({ python: current as string }).execute({ cells: [{ code }] });
      const lines = (result.details.cells[0]?.text ?? "").trimEnd().split("\n");
      expect(lines[0]).toBe("start");
      expect(lines[1]).toMatch(/^100%\|█+\| 2000\/2000 /);
      expect(lines[2]).toMatch(/^Working ━+ 100% /);
      expect(lines[3]).toBe("end");
      expect(lines).toHaveLength(4);
    },
  );
});
