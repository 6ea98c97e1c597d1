import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../../src/contracts/outputs.js";
import {
  collectDisplayParts,
  renderBundleText,
  renderBundleTextForTerminal,
  renderJsonText,
} from "../../../src/output/display/display-render.js";

function pngBase64(width: number, height: number, extraBytes = 0): string {
  const head = Buffer.alloc(33 + extraBytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write("IHDR", 12, "latin1");
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head.toString("base64");
}

function jpegBase64(width: number, height: number): string {
  // SOI, an APP0 segment of 16 bytes, then SOF0 with the frame size.
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...Array<number>(14).fill(0)];
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 3];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof, ...Array<number>(16).fill(0)]).toString("base64");
}

const display = (data: Record<string, unknown>): KernelOutput => ({ type: "display", data });

describe("renderBundleText", () => {
  it("prefers text/markdown, then text/plain, then text/html converted to markdown", () => {
    const all = { "text/markdown": "**md**", "text/plain": "plain", "text/html": "<b>html</b>" };
    expect(renderBundleText(all)).toBe("**md**");
    expect(renderBundleText({ "text/plain": "plain", "text/html": "<b>html</b>" })).toBe("plain");
    expect(renderBundleText({ "text/html": "<p>a <i>b</i></p>" })).toBe("a _b_");
  });

  it("lets HTML speak when text/plain is only a default object repr", () => {
    const styler = {
      "text/plain": "<pandas.io.formats.style.Styler at 0x7f3a2c>",
      "text/html": "<h3>Scores</h3>",
    };
    expect(renderBundleText(styler)).toBe("### Scores");
    expect(renderBundleText({ "text/plain": "<HTML object>", "text/html": "<em>x</em>" })).toBe("_x_");
    expect(
      renderBundleText({ "text/plain": "<Figure size 640x480 with 1 Axes>", "text/html": "<p>no</p>" }),
    ).toBe("<Figure size 640x480 with 1 Axes>");
  });

  it("shows application/json pretty-printed when nothing better is there, capped with a notice", () => {
    expect(renderBundleText({ "application/json": { a: [1, "NaN"] }, "text/plain": "<JSON object>" })).toBe(
      '{\n  "a": [\n    1,\n    "NaN"\n  ]\n}',
    );
    const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ i, label: `row ${i}` })) };
    const text = renderBundleText({ "application/json": big });
    expect(text.length).toBeLessThan(8_200);
    expect(text).toMatch(
      /… \[JSON cut: 8,000 of [\d,]+ characters shown; the full value is in details.outputs\]$/,
    );
    expect(renderJsonText(big, 100).startsWith('{\n  "rows"')).toBe(true);
  });

  it("names unknown MIME types rather than showing nothing", () => {
    expect(renderBundleText({ "application/vnd.custom+json": {} })).toBe(
      "[display: application/vnd.custom+json]",
    );
    expect(renderBundleText({ "image/png": pngBase64(1, 1) })).toBe("");
  });
});

describe("renderBundleTextForTerminal", () => {
  const frame = {
    "text/plain": "   a\n0  1\n1  2",
    "text/markdown": "|  | a |\n|---|---|\n| 0 | 1 |\n| 1 | 2 |",
    "text/html": "<table><tr><td>1</td></tr></table>",
  };

  it("gives people IPython's text/plain where the model reads the markdown table", () => {
    expect(renderBundleTextForTerminal(frame)).toBe("   a\n0  1\n1  2");
    expect(renderBundleText(frame)).toBe(frame["text/markdown"]);
  });

  it("falls back to the model's view when text/plain is only a default repr", () => {
    const md = { "text/plain": "<IPython.core.display.Markdown object>", "text/markdown": "# Title" };
    expect(renderBundleTextForTerminal(md)).toBe("# Title");
    const html = { "text/plain": "<IPython.core.display.HTML object>", "text/html": "<b>bold</b>" };
    expect(renderBundleTextForTerminal(html)).toBe("**bold**");
    expect(renderBundleTextForTerminal({ "text/markdown": "*only*" })).toBe("*only*");
  });
});

describe("collectDisplayParts", () => {
  it("keeps streams, displays and errors in order, with a marker per image", () => {
    const parts = collectDisplayParts([
      { type: "stream", name: "stdout", text: "loading" },
      display({ "image/png": pngBase64(640, 480), "text/plain": "<Figure size 640x480 with 1 Axes>" }),
      { type: "stream", name: "stdout", text: "done\n" },
      { type: "result", data: { "text/plain": "42" } },
      { type: "error", ename: "ValueError", evalue: "bad", traceback: ["Traceback:", "ValueError: bad"] },
    ]);
    expect(parts.text).toBe(
      "loading\n<Figure size 640x480 with 1 Axes>\n[image 1: image/png 640x480, 33 B]\ndone\n42\nTraceback:\nValueError: bad",
    );
    expect(parts.images).toEqual([
      { mimeType: "image/png", data: pngBase64(640, 480), bytes: 33, width: 640, height: 480 },
    ]);
  });

  it("collects JPEG and SVG images and notes images over the size limit instead of passing them on", () => {
    const parts = collectDisplayParts(
      [
        display({ "image/jpeg": jpegBase64(300, 200) }),
        display({ "image/svg+xml": "<svg/>" }),
        display({ "image/png": pngBase64(4000, 3000, 2048) }),
      ],
      { maxImageBytes: 1024 },
    );
    expect(parts.images.map((i) => [i.mimeType, i.width, i.height])).toEqual([
      ["image/jpeg", 300, 200],
      ["image/svg+xml", undefined, undefined],
    ]);
    expect(Buffer.from(parts.images[1]?.data ?? "", "base64").toString()).toBe("<svg/>");
    expect(parts.text).toContain(
      "[image/png 4000x3000, 2.0 KB: too large to show (limit 1.0 KB); kept in details]",
    );
  });

  it("collects application/json values whole and status events apart from the text", () => {
    const big = { list: Array.from({ length: 3000 }, (_, i) => i) };
    const parts = collectDisplayParts([
      display({ "application/json": big }),
      display({ [STATUS_MIME]: { op: "cd", path: "/srv" } }),
      { type: "status", event: { op: "time", ms: 3 } },
    ]);
    expect(parts.json).toEqual([big]);
    expect(parts.statusEvents).toEqual([
      { op: "cd", path: "/srv" },
      { op: "time", ms: 3 },
    ]);
    expect(parts.text).not.toContain("/srv");
  });

  it("shows the latest state of updated and cleared displays", () => {
    const parts = collectDisplayParts([
      { type: "display", data: { "text/plain": "0%" }, displayId: "bar" },
      { type: "stream", name: "stdout", text: "working\n" },
      { type: "display", data: { "text/plain": "100%" }, displayId: "bar", update: true },
      { type: "clear_output", wait: true },
      { type: "display", data: { "text/markdown": "**done**" } },
    ]);
    expect(parts.text).toBe("**done**");
  });
});
