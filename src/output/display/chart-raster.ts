// Charts a browser would draw, as PNG images a model can see: SVG through resvg, Vega and Vega-Lite specs
// (Altair's output) through Vega's own server-side renderer, then resvg. Loaded on the first chart only.
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CHART_TYPES, VEGA_LITE_TYPES } from "./display-images.js";
import type { DisplayImage } from "./display-render.js";

/** Longest edge of a rasterised chart, in pixels: within what model APIs take without scaling it themselves. */
export const MAX_RASTER_EDGE = 1568;

// Raster types resvg can embed in an SVG (and so scale down); WebP is passed on as it is.
const SCALABLE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif"];

function isOversized(image: DisplayImage): boolean {
  return (
    SCALABLE_TYPES.includes(image.mimeType) && Math.max(image.width ?? 0, image.height ?? 0) > MAX_RASTER_EDGE
  );
}

/**
 * True when `images` holds something rasteriseImages would change: an SVG or a chart spec to draw, or a picture
 * larger than MAX_RASTER_EDGE to scale down.
 */
export function hasRasterWork(images: readonly DisplayImage[]): boolean {
  return images.some(
    (image) =>
      image.mimeType === "image/svg+xml" || CHART_TYPES.includes(image.mimeType) || isOversized(image),
  );
}

type ResvgModule = typeof import("@resvg/resvg-js");
type VegaModules = typeof import("./chart-vega.js");
type VegaModule = VegaModules["vega"];
type VegaLiteModule = VegaModules["vegaLite"];

// Set by the build in dist/'s bundles (scripts/bundle-config.mjs).
declare const EVALKIT_BUNDLED: boolean | undefined;

// resvg (a native binary) and Vega cost ~150 ms to load: required on the first chart, never before.
const requireLazily = createRequire(import.meta.url);
let resvgModule: ResvgModule | undefined;
let vegaModules: Promise<VegaModules> | undefined;

function loadResvg(): ResvgModule {
  resvgModule ??= requireLazily("@resvg/resvg-js") as ResvgModule;
  return resvgModule;
}

function loadVega(): Promise<VegaModules> {
  if (vegaModules === undefined) {
    // The bundle cannot import() (it runs through vm.Script): it requires dist/charts.cjs, Vega built to CommonJS.
    vegaModules =
      typeof EVALKIT_BUNDLED !== "undefined" && EVALKIT_BUNDLED
        ? Promise.resolve(requireLazily("./charts.cjs") as VegaModules)
        : import("./chart-vega.js");
  }
  return vegaModules;
}

/**
 * The images with each SVG and chart spec replaced by a PNG drawing of it (`width`/`height` set, `source` naming
 * what it was drawn from), and each PNG, JPEG or GIF over MAX_RASTER_EDGE scaled down to a PNG within it
 * (`scaledFrom` giving the original size). What cannot be drawn (a broken spec, data behind a URL, no resvg
 * binary for this platform) stays as it was: the model's content leaves out SVG and specs, as before.
 */
export async function rasteriseImages(images: readonly DisplayImage[]): Promise<DisplayImage[]> {
  const out: DisplayImage[] = [];
  for (const image of images) {
    out.push((await rasteriseOne(image)) ?? image);
  }
  return out;
}

async function rasteriseOne(image: DisplayImage): Promise<DisplayImage | undefined> {
  try {
    if (image.mimeType === "image/svg+xml") {
      return await drawSvg(Buffer.from(image.data, "base64").toString("utf8"), image.mimeType);
    }
    if (CHART_TYPES.includes(image.mimeType)) {
      const spec = JSON.parse(Buffer.from(image.data, "base64").toString("utf8")) as object;
      return await drawSvg(
        await renderVegaSvg(spec, VEGA_LITE_TYPES.includes(image.mimeType)),
        image.mimeType,
      );
    }
    if (isOversized(image)) {
      const { width, height } = image as { width: number; height: number };
      // resvg scales a picture embedded in an SVG of its size: no image codec of our own
      const svg =
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
        `<image width="${width}" height="${height}" href="data:${image.mimeType};base64,${image.data}"/></svg>`;
      return { ...(await drawSvg(svg, image.mimeType)), scaledFrom: { width, height } };
    }
  } catch {
    // Not drawable here: the image stays as it was (noted in the text, not sent as an image block).
  }
  return undefined;
}

// A sans-serif family for chart text (Vega's labels ask for sans-serif), as [regular, bold, family]: loading two
// font files takes ~1 ms where scanning every system font takes 15-60 ms on each render.
const SANS_FONTS: readonly [string, string, string][] = [
  ["dejavusans.ttf", "dejavusans-bold.ttf", "DejaVu Sans"],
  ["liberationsans-regular.ttf", "liberationsans-bold.ttf", "Liberation Sans"],
  ["arial.ttf", "arialbd.ttf", "Arial"],
  ["arial.ttf", "arial bold.ttf", "Arial"],
];
const FONT_DIRS = [
  "/usr/share/fonts",
  "/usr/local/share/fonts",
  "/Library/Fonts",
  "/System/Library/Fonts/Supplemental",
];
let fontOptions: ResvgOptions["font"] | undefined;

type ResvgOptions = NonNullable<ConstructorParameters<ResvgModule["Resvg"]>[1]>;

/** The fonts charts are drawn with: one sans family found once, else every system font. */
function findFonts(): NonNullable<ResvgOptions["font"]> {
  if (fontOptions !== undefined) return fontOptions;
  const windows = process.env.WINDIR ? [path.join(process.env.WINDIR, "Fonts")] : [];
  const files = new Map<string, string>();
  for (const dir of [...FONT_DIRS, ...windows]) {
    try {
      for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
        const name = path.basename(entry).toLowerCase();
        if (!files.has(name)) files.set(name, path.join(dir, entry));
      }
    } catch {
      // No such directory on this system.
    }
  }
  const found = SANS_FONTS.find(([regular]) => files.has(regular));
  fontOptions = found
    ? {
        loadSystemFonts: false,
        fontFiles: [found[0], found[1]].flatMap((name) => files.get(name) ?? []),
        defaultFontFamily: found[2],
        sansSerifFamily: found[2],
      }
    : { loadSystemFonts: true };
  return fontOptions;
}

async function drawSvg(svg: string, source: string): Promise<DisplayImage> {
  const { Resvg } = loadResvg();
  // The size alone needs no fonts
  const { width, height } = new Resvg(svg, { font: { loadSystemFonts: false } });
  const longest = Math.max(width, height);
  const fitTo =
    longest > MAX_RASTER_EDGE
      ? width >= height
        ? ({ mode: "width", value: MAX_RASTER_EDGE } as const)
        : ({ mode: "height", value: MAX_RASTER_EDGE } as const)
      : ({ mode: "original" } as const);
  const rendered = new Resvg(svg, { background: "white", fitTo, font: findFonts() }).render();
  const png = rendered.asPng();
  return {
    mimeType: "image/png",
    data: png.toString("base64"),
    bytes: png.length,
    width: rendered.width,
    height: rendered.height,
    source,
  };
}

/** A Vega(-Lite) spec drawn to SVG by Vega's headless view; external data (URLs, files) is refused. */
async function renderVegaSvg(spec: object, isVegaLite: boolean): Promise<string> {
  const { vega, vegaLite } = await loadVega();
  const vegaSpec = isVegaLite
    ? vegaLite.compile(spec as Parameters<VegaLiteModule["compile"]>[0]).spec
    : spec;
  const loader = vega.loader();
  // Vega draws an empty chart when data fails to load: a chart that asked for any is not drawn at all.
  let isDataRefused = false;
  loader.load = () => {
    isDataRefused = true;
    return Promise.reject(new Error("charts with data behind a URL are not drawn"));
  };
  const view = new vega.View(vega.parse(vegaSpec as Parameters<VegaModule["parse"]>[0]), {
    renderer: "none",
    loader,
    logLevel: vega.None,
  });
  try {
    const svg = await view.toSVG();
    if (isDataRefused) throw new Error("the chart's data lies behind a URL");
    return svg;
  } finally {
    view.finalize();
  }
}
