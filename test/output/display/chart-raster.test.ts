// Charts a browser draws become PNG images a model can see: SVG through resvg, Vega-Lite and Vega through Vega.
import { describe, expect, it } from "vitest";
import { hasRasterWork, MAX_RASTER_EDGE, rasteriseImages } from "../../../src/output/display/chart-raster.js";
import type { DisplayImage } from "../../../src/output/display/display-render.js";

function encoded(mimeType: string, text: string): DisplayImage {
  const data = Buffer.from(text, "utf8").toString("base64");
  return { mimeType, data, bytes: text.length };
}

function pngSize(image: DisplayImage): [number, number] {
  const bytes = Buffer.from(image.data, "base64");
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="60" height="80" fill="red"/></svg>';
const BAR_CHART = {
  $schema: "https://vega.github.io/schema/vega-lite/v5.json",
  data: {
    values: [
      { a: "A", b: 28 },
      { a: "B", b: 55 },
      { a: "C", b: 43 },
    ],
  },
  mark: "bar",
  encoding: { x: { field: "a", type: "nominal" }, y: { field: "b", type: "quantitative" } },
};

describe("rasteriseImages", () => {
  it("draws an SVG as a PNG of its size, noting what it was drawn from", async () => {
    const [png] = await rasteriseImages([encoded("image/svg+xml", SVG)]);
    expect(png).toMatchObject({ mimeType: "image/png", width: 120, height: 80, source: "image/svg+xml" });
    expect(pngSize(png as DisplayImage)).toEqual([120, 80]);
    const pixels = Buffer.from((png as DisplayImage).data, "base64");
    expect(png?.bytes).toBe(pixels.length);
  });

  it("scales an SVG larger than models take down to the longest edge they accept", async () => {
    const big =
      '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="1000"><rect width="4000" height="1000"/></svg>';
    const [png] = await rasteriseImages([encoded("image/svg+xml", big)]);
    expect(pngSize(png as DisplayImage)).toEqual([MAX_RASTER_EDGE, MAX_RASTER_EDGE / 4]);
  });

  it("draws a Vega-Lite chart (what Altair emits) to a PNG, as a browser would", async () => {
    const [png] = await rasteriseImages([
      encoded("application/vnd.vegalite.v5+json", JSON.stringify(BAR_CHART)),
    ]);
    expect(png?.mimeType).toBe("image/png");
    expect(png?.source).toBe("application/vnd.vegalite.v5+json");
    const [width, height] = pngSize(png as DisplayImage);
    // three bars of Vega-Lite's default 20 px step plus axes, and the default 200 px plot height plus axes
    expect(width).toBeGreaterThan(60);
    expect(height).toBeGreaterThan(200);
  });

  it("leaves what it cannot draw as it was: broken specs, charts whose data lies behind a URL, broken SVG", async () => {
    const broken = encoded("application/vnd.vegalite.v5+json", "{not json");
    const remote = encoded(
      "application/vnd.vegalite.v5+json",
      JSON.stringify({ ...BAR_CHART, data: { url: "http://127.0.0.1:9/data.json" } }),
    );
    const badSvg = encoded("image/svg+xml", "<svg");
    const png = encoded("image/png", "not touched");
    expect(await rasteriseImages([broken, remote, badSvg, png])).toEqual([broken, remote, badSvg, png]);
  });

  it("scales a picture over the longest edge models take down to a PNG within it, noting its original size", async () => {
    // a 2000x500 PNG drawn by resvg itself, then handed back as a picture
    const wide =
      '<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="500"><rect width="2000" height="500" fill="green"/></svg>';
    const { Resvg } = await import("@resvg/resvg-js");
    const png = new Resvg(wide).render().asPng();
    const picture: DisplayImage = {
      mimeType: "image/png",
      data: png.toString("base64"),
      bytes: png.length,
      width: 2000,
      height: 500,
    };
    expect(hasRasterWork([picture])).toBe(true);
    const [scaled] = await rasteriseImages([picture]);
    expect(pngSize(scaled as DisplayImage)).toEqual([MAX_RASTER_EDGE, MAX_RASTER_EDGE / 4]);
    expect(scaled?.scaledFrom).toEqual({ width: 2000, height: 500 });
    const small = { ...picture, width: 800, height: 200 };
    expect(hasRasterWork([small])).toBe(false);
  });

  it("says when there is work: an SVG or a chart spec, never for PNG, JPEG or GIF alone", () => {
    expect(hasRasterWork([encoded("image/png", "x"), encoded("image/jpeg", "y")])).toBe(false);
    expect(hasRasterWork([encoded("image/svg+xml", SVG)])).toBe(true);
    expect(hasRasterWork([encoded("application/vnd.vega.v5+json", "{}")])).toBe(true);
  });
});
