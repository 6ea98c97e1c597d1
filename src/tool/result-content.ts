// What a model reads from an eval call: one text block per cell under a `[i/n] title` header, then its images.
import { type CellResult, type CellStatus, describeLanguage } from "../contracts/cell-result.js";
import { MODEL_IMAGE_TYPES } from "../output/display/display-images.js";
import type { DisplayImage } from "../output/display/display-render.js";

/** A text block. */
export interface EvalTextContent {
  type: "text";
  text: string;
}

/** An image block: base64 data. */
export interface EvalImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/** One block of what the model reads. */
export type EvalContent = EvalTextContent | EvalImageContent;

const STATUS_WORDS: Record<CellStatus, string> = {
  ok: "",
  error: "error",
  timeout: "timed out",
  cancelled: "cancelled",
  killed: "killed",
  died: "kernel died",
  skipped: "skipped",
  running: "running",
};

/** `[2/3] load data (error)`; a cell without a title is named by its language. */
export function formatCellHeader(
  cell: Pick<CellResult, "index" | "title" | "language" | "status">,
  total: number,
) {
  const name = cell.title?.trim() ? cell.title.trim() : describeLanguage(cell.language);
  const status = STATUS_WORDS[cell.status];
  return `[${cell.index + 1}/${total}] ${name}${status ? ` (${status})` : ""}`;
}

/** A cell's body as the model reads it: output (already bounded) followed by one `[notice]` line per notice. */
export function composeCellText(body: string, notices: readonly string[]): string {
  const lines = notices.map((notice) => `[notice] ${notice}`);
  if (lines.length === 0) return body;
  const separator = body === "" || body.endsWith("\n") ? "" : "\n";
  return `${body}${separator}${lines.join("\n")}`;
}

/** Text and image blocks for every cell, in order. `images[i]` are cell i's images. */
export function buildContent(
  cells: readonly CellResult[],
  images: readonly (readonly DisplayImage[])[],
): EvalContent[] {
  return cells.flatMap((_, i) => buildCellContent(cells, i, images[i] ?? [], cells.length));
}

/**
 * The blocks of cell `index` (its header counts `total` cells). A finished cell's blocks never change, so
 * live updates build each cell once instead of rebuilding every finished cell on every update.
 */
export function buildCellContent(
  cells: readonly CellResult[],
  index: number,
  images: readonly DisplayImage[],
  total: number,
): EvalContent[] {
  const cell = cells[index];
  if (cell === undefined) return [];
  const header = formatCellHeader(cell, total);
  const output = cell.text.replace(/\n+$/, "");
  const notices = cell.status === "skipped" ? [describeSkip(cells, index)] : (cell.notices ?? []);
  const isEmpty = output === "" && notices.length === 0;
  const body = isEmpty ? (cell.status === "ok" ? "(no output)" : "") : composeCellText(output, notices);
  const content: EvalContent[] = [{ type: "text", text: body === "" ? header : `${header}\n${body}` }];
  for (const image of images) {
    if (MODEL_IMAGE_TYPES.includes(image.mimeType)) {
      content.push({ type: "image", data: image.data, mimeType: image.mimeType });
    }
  }
  return content;
}

/** Why a cell was skipped: the first earlier cell that did not end ok. */
function describeSkip(cells: readonly CellResult[], index: number): string {
  const failed = cells.slice(0, index).find((c) => c.status !== "ok" && c.status !== "skipped");
  return failed
    ? `not run: cell ${failed.index + 1} ended with status "${failed.status}"`
    : "not run: the call was cancelled";
}
