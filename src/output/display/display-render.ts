// Display bundles -> what a model reads (text) plus structured parts an app can show (images, JSON, status).
import type { CellOutput, KernelOutput, MimeBundle, StatusOutput } from "../../contracts/outputs.js";
import { STATUS_MIME } from "../../contracts/outputs.js";
import { convertHtmlToMarkdown } from "./display-html.js";
import {
  CHART_TYPES,
  DISPLAY_IMAGE_TYPES,
  formatByteSize,
  listBundleImageTypes,
  measureBase64Bytes,
  readImageSize,
  VEGA_LITE_TYPES,
} from "./display-images.js";
import { applyDisplayUpdates } from "./display-updates.js";

/** Limits for the model's view of displays. */
export interface DisplayRenderOptions {
  /** Characters of application/json shown in text before it is cut with a notice (default 8,000). */
  jsonTextLimit?: number;
  /** Decoded bytes above which an image is only noted with its size, not passed on (default 5 MB). */
  maxImageBytes?: number;
  /** Images passed on per cell; later ones are only noted (default 10: a model's context is not a gallery). */
  maxImages?: number;
}

export const DEFAULT_JSON_TEXT_LIMIT = 8_000;
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_IMAGES = 10;

/** One image taken from a display bundle. */
export interface DisplayImage {
  mimeType: string;
  /** Base64 (for SVG: base64 of the UTF-8 source). */
  data: string;
  /** Decoded size. */
  bytes: number;
  width?: number;
  height?: number;
  /** For an image drawn for the model (output/display/chart-raster.ts): the MIME type it was drawn from. */
  source?: string;
  /** For a picture scaled down for the model: its original size (the original stays in details.outputs). */
  scaledFrom?: { width: number; height: number };
}

/** A cell's outputs split into the model's text and the structured parts beside it. */
export interface DisplayParts {
  text: string;
  images: DisplayImage[];
  json: unknown[];
  statusEvents: StatusOutput["event"][];
}

// `<Foo object>`, `<mod.Foo object at 0x7f..>`, `<mod.Foo at 0x7f..>`: a repr that says nothing.
const DEFAULT_REPR = /^<[\w.]+(?: object at 0x[0-9a-fA-F]+| object| at 0x[0-9a-fA-F]+)>$/;

function stringAt(bundle: MimeBundle, mime: string): string | undefined {
  const value = bundle[mime];
  return typeof value === "string" ? value : undefined;
}

/** Pretty JSON, cut at the limit with a notice saying how much was left out. */
export function renderJsonText(value: unknown, limit: number = DEFAULT_JSON_TEXT_LIMIT): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… [JSON cut: ${limit.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters shown; the full value is in details.outputs]`;
}

/**
 * The text a model reads for one bundle: `text/markdown`, else `text/plain`, else `text/html` as markdown.
 * A `text/plain` that is only a default object repr (`<Foo object at 0x..>`) yields to HTML, LaTeX or JSON,
 * which say more. Returns "" when the bundle has nothing textual (an image alone).
 */
export function renderBundleText(bundle: MimeBundle, options: DisplayRenderOptions = {}): string {
  const markdown = stringAt(bundle, "text/markdown");
  if (markdown !== undefined) return markdown;
  const plain = stringAt(bundle, "text/plain");
  const isDefaultRepr = plain !== undefined && DEFAULT_REPR.test(plain.trim());
  if (plain !== undefined && !isDefaultRepr) return plain;
  const html = stringAt(bundle, "text/html");
  if (html !== undefined) return convertHtmlToMarkdown(html);
  const latex = stringAt(bundle, "text/latex");
  if (latex !== undefined) return latex;
  if ("application/json" in bundle) return renderJsonText(bundle["application/json"], options.jsonTextLimit);
  if (plain !== undefined) return plain;
  const rest = Object.keys(bundle).filter(
    (m) => !DISPLAY_IMAGE_TYPES.includes(m) && !CHART_TYPES.includes(m) && m !== STATUS_MIME,
  );
  return rest.length > 0 ? `[display: ${rest.join(", ")}]` : "";
}

/**
 * The text a person at a terminal reads for one bundle: what IPython prints, its `text/plain` (pandas' aligned
 * frame with its own truncation, a Series with its `Name: …, dtype: …` footer), unless that is only a default
 * object repr; then the model's view ({@link renderBundleText}: markdown, HTML as markdown, ...). The REPL and
 * `evalkit exec`'s text mode use it; what a model reads keeps the markdown tables.
 */
export function renderBundleTextForTerminal(bundle: MimeBundle, options: DisplayRenderOptions = {}): string {
  const plain = stringAt(bundle, "text/plain");
  if (plain !== undefined && !DEFAULT_REPR.test(plain.trim())) return plain;
  return renderBundleText(bundle, options);
}

function toDisplayImage(mimeType: string, value: unknown): DisplayImage | undefined {
  if (CHART_TYPES.includes(mimeType)) {
    if (typeof value !== "object" || value === null) return undefined;
    const data = Buffer.from(JSON.stringify(value), "utf8").toString("base64");
    return { mimeType, data, bytes: measureBase64Bytes(data) };
  }
  if (typeof value !== "string") return undefined;
  const data = mimeType === "image/svg+xml" ? Buffer.from(value, "utf8").toString("base64") : value;
  const image: DisplayImage = { mimeType, data, bytes: measureBase64Bytes(data) };
  const size = readImageSize(mimeType, data);
  if (size) {
    image.width = size.width;
    image.height = size.height;
  }
  return image;
}

function describeImage(image: DisplayImage): string {
  if (CHART_TYPES.includes(image.mimeType)) {
    return `${VEGA_LITE_TYPES.includes(image.mimeType) ? "Vega-Lite" : "Vega"} chart, drawn as PNG for the model`;
  }
  const size = image.width !== undefined ? ` ${image.width}x${image.height}` : "";
  return `${image.mimeType}${size}, ${formatByteSize(image.bytes)}`;
}

/**
 * The image in a bundle value and the line the model reads for it: `image` is set when it is passed on
 * (`shown` images were already), else the line says why not (too large, or past the per-cell count).
 */
export function takeDisplayImage(
  mimeType: string,
  value: unknown,
  shown: number,
  options: DisplayRenderOptions,
): { image?: DisplayImage; line: string } | undefined {
  const image = toDisplayImage(mimeType, value);
  if (!image) return undefined;
  const limit = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  if (image.bytes > limit) {
    return {
      line: `[${describeImage(image)}: too large to show (limit ${formatByteSize(limit)}); kept in details]`,
    };
  }
  const most = options.maxImages ?? DEFAULT_MAX_IMAGES;
  if (shown >= most) {
    return {
      line: `[${describeImage(image)}: not attached, the cell already shows ${most} images; kept in details]`,
    };
  }
  return { image, line: `[image ${shown + 1}: ${describeImage(image)}]` };
}

function renderOutputTextInto(
  parts: DisplayParts,
  output: CellOutput,
  options: DisplayRenderOptions,
): string {
  switch (output.type) {
    case "stream":
      return output.text;
    case "error":
      return output.traceback.length > 0 ? output.traceback.join("\n") : `${output.ename}: ${output.evalue}`;
    case "clear_output":
      return "";
    case "status":
      parts.statusEvents.push(output.event);
      return "";
    default: {
      const lines: string[] = [];
      const text = renderBundleText(output.data, options);
      if (text) lines.push(text);
      if ("application/json" in output.data) parts.json.push(output.data["application/json"]);
      for (const mime of listBundleImageTypes(output.data)) {
        const taken = takeDisplayImage(mime, output.data[mime], parts.images.length, options);
        if (!taken) continue;
        if (taken.image) parts.images.push(taken.image);
        lines.push(taken.line);
      }
      return lines.join("\n");
    }
  }
}

/**
 * What a model reads for a cell, in order: streams as written, each display/result as its bundle text with a
 * marker per image, errors as tracebacks. Display updates and clear_output are applied first (the latest
 * state); status events, images and application/json values are collected beside the text.
 */
export function collectDisplayParts(
  outputs: readonly (KernelOutput | CellOutput)[],
  options: DisplayRenderOptions = {},
): DisplayParts {
  const parts: DisplayParts = { text: "", images: [], json: [], statusEvents: [] };
  let text = "";
  for (const output of applyDisplayUpdates(outputs)) {
    const piece = renderOutputTextInto(parts, output, options);
    if (!piece) continue;
    if (output.type === "stream") {
      text += piece;
      continue;
    }
    // Rich outputs and errors stand on their own lines, whatever the streams around them ended with.
    if (text && !text.endsWith("\n")) text += "\n";
    text += `${piece}\n`;
  }
  parts.text = text.replace(/\n+$/, "");
  return parts;
}

/** The text for a single output as collectDisplayParts would show it (no updates applied, images noted). */
export function renderOutputText(
  output: KernelOutput | CellOutput,
  options: DisplayRenderOptions = {},
): string {
  return collectDisplayParts([output], options).text;
}
