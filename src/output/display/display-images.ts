// Facts about base64 image payloads (decoded size, pixel dimensions) without decoding whole images.

/** Image types model APIs accept as image blocks; SVG is collected too but is not one of them. */
export const MODEL_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Image MIME types collected from display bundles. */
export const DISPLAY_IMAGE_TYPES: readonly string[] = [...MODEL_IMAGE_TYPES, "image/svg+xml"];

/** Vega-Lite versions Altair and others emit (`application/vnd.vegalite.v5+json`). */
export const VEGA_LITE_TYPES: readonly string[] = [
  "application/vnd.vegalite.v6+json",
  "application/vnd.vegalite.v5+json",
  "application/vnd.vegalite.v4+json",
  "application/vnd.vegalite.v3+json",
];

/**
 * Chart specs a browser draws (Vega-Lite, Vega): collected like images (base64 of the JSON) when their bundle
 * has no image the model can take, and drawn to PNG for the model (output/display/chart-raster.ts).
 */
export const CHART_TYPES: readonly string[] = [
  ...VEGA_LITE_TYPES,
  "application/vnd.vega.v6+json",
  "application/vnd.vega.v5+json",
];

/** The MIME types of `bundle` to collect as images, in order: its images, else its chart spec. */
export function listBundleImageTypes(bundle: Record<string, unknown>): string[] {
  const images = DISPLAY_IMAGE_TYPES.filter((mime) => mime in bundle);
  if (images.some((mime) => MODEL_IMAGE_TYPES.includes(mime))) return images;
  const chart = CHART_TYPES.find((mime) => mime in bundle);
  return chart === undefined ? images : [...images, chart];
}

/** Decoded size of a base64 string, counted without decoding it. */
export function measureBase64Bytes(base64: string): number {
  const clean = base64.replace(/[^A-Za-z0-9+/=_-]/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** Width and height from the image header (PNG, GIF, JPEG), or undefined when it cannot be read. */
export function readImageSize(
  mimeType: string,
  base64: string,
): { width: number; height: number } | undefined {
  // 64 KiB of decoded data reaches a JPEG frame header even behind a large EXIF block.
  const head = Buffer.from(base64.slice(0, 87_384), "base64");
  if (mimeType === "image/png" && head.length >= 24 && head.toString("latin1", 12, 16) === "IHDR") {
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (mimeType === "image/gif" && head.length >= 10) {
    return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  }
  if (mimeType === "image/jpeg") return readJpegSize(head);
  return undefined;
}

function readJpegSize(data: Buffer): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1] ?? 0;
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
    }
    offset += 2 + data.readUInt16BE(offset + 2);
  }
  return undefined;
}

/** "1.2 MB", "21.3 KB", "512 B". */
export function formatByteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}
