// matplotlib, pandas and PIL output through a real kernel on Debian's interpreter, which has those libraries.

import { describe, expect, it } from "vitest";
import type { DisplayOutput, KernelOutput } from "../../src/contracts/outputs.js";
import type { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import { collectDisplayParts } from "../../src/output/display/display-render.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { DEBIAN_PYTHON, startKernel } from "../helpers/python.js";

const LIBRARIES = ["matplotlib", "pandas", "PIL", "numpy"];
const skipReason = librarySkipReason(DEBIAN_PYTHON, LIBRARIES);

function pngs(outputs: KernelOutput[]): Buffer[] {
  return outputs
    .filter((o): o is DisplayOutput => o.type === "display" || o.type === "result")
    .flatMap((o) =>
      typeof o.data["image/png"] === "string" ? [Buffer.from(o.data["image/png"], "base64")] : [],
    );
}

function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.toString("latin1", 12, 16)).toBe("IHDR");
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe.skipIf(skipReason !== undefined)(
  titleWithSkip(`rich output of Python libraries (${DEBIAN_PYTHON})`, skipReason),
  () => {
    let kernel: PythonKernel;

    async function run(code: string): Promise<KernelOutput[]> {
      kernel = await startKernel({ python: DEBIAN_PYTHON });
      await kernel.execute(
        "import matplotlib.pyplot as plt\nimport pandas as pd\nfrom PIL import Image as PILImage",
      );
      const outcome = await kernel.execute(code);
      expect(outcome.status, JSON.stringify(outcome.error)).toBe("ok");
      return outcome.outputs;
    }

    it("shows one plot as exactly one PNG cropped to what is drawn, as Jupyter's inline backend saves it, and `plt.plot(...);` gives no list result", async () => {
      const outputs = await run("plt.figure(figsize=(4, 3), dpi=50)\nplt.plot([1, 3, 2]);");
      const images = pngs(outputs);
      expect(images).toHaveLength(1);
      // bbox_inches='tight' at the figure's dpi: inside the 200x150 figure, around its axes and labels
      const [width, height] = pngSize(images[0] as Buffer);
      expect(width).toBeLessThan(200);
      expect(height).toBeLessThan(150);
      expect(width).toBeGreaterThan(150);
      expect(height).toBeGreaterThan(110);
      expect(outputs.filter((o) => o.type === "result")).toEqual([]);
      expect(collectDisplayParts(outputs).images).toHaveLength(1);
    });

    it("shows two figures as two images", async () => {
      const outputs = await run(
        "plt.figure(figsize=(2, 2), dpi=50); plt.plot([1])\nplt.figure(figsize=(3, 2), dpi=50); plt.plot([2]);",
      );
      const sizes = pngs(outputs).map(pngSize);
      expect(sizes).toHaveLength(2);
      const [[width1, height1], [width2, height2]] = sizes as [[number, number], [number, number]];
      expect(width2 - width1).toBeGreaterThan(25); // 3 inches wide against 2, at 50 dpi, both cropped
      expect(height1).toBe(height2);
    });

    it("does not duplicate a figure shown with plt.show(), and shows it where show() was called", async () => {
      const outputs = await run("plt.plot([1, 2]); plt.show(); print('after show')");
      expect(pngs(outputs)).toHaveLength(1);
      expect(outputs.map((o) => o.type)).toEqual(["display", "stream"]);
    });

    it("does not emit a figure twice when the cell displayed it explicitly", async () => {
      const outputs = await run("fig, ax = plt.subplots(); ax.plot([1, 2]); display(fig)");
      expect(pngs(outputs)).toHaveLength(1);
    });

    it("gives a DataFrame result a readable markdown table in the model text", async () => {
      const outputs = await run("pd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [-3.5, 19.0]})");
      const text = collectDisplayParts(outputs).text;
      expect(text).toBe("|  | city | temp |\n|---|---|---|\n| 0 | Oslo | -3.5 |\n| 1 | Lima | 19.0 |");
      const result = outputs.find((o): o is DisplayOutput => o.type === "result");
      expect(result?.data["text/html"]).toContain('<table border="1" class="dataframe">');
    });

    it("shows a PIL image as a PNG of its size", async () => {
      const outputs = await run("PILImage.new('RGB', (12, 7), 'red')");
      const images = pngs(outputs);
      expect(images).toHaveLength(1);
      expect(pngSize(images[0] as Buffer)).toEqual([12, 7]);
    });
  },
);
