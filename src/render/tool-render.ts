// The transcript renderer: eval results as text for logs and chat transcripts (code block, status, output).
import { type CellResult, describeLanguage } from "../contracts/cell-result.js";
import { stripAnsi } from "../text/ansi.js";
import { collapseLines, formatBytes, formatDuration, pluralize, splitLines } from "../text/text-lines.js";
import { collectNotices } from "./notices.js";

/** Lines of output shown per cell when collapsed. */
export const TOOL_PREVIEW_LINES = 10;

/** A cell result together with the code that produced it. */
export interface ToolRenderCell {
  result: CellResult;
  code: string;
}

export interface ToolRenderOptions {
  /** Show all output retained in the result instead of the preview. Default false. */
  expanded?: boolean;
  /** Lines of output in the collapsed preview (default 10). */
  previewLines?: number;
  /** Number of cells in the call (default: the number of cells rendered). */
  total?: number;
}

/** `[2/3] load data (py) — ok, 1.2 s` (the title is left out when the cell has none). */
export function renderToolCellHeader(result: CellResult, total: number): string {
  const title = result.title ? `${result.title} ` : "";
  const duration = result.status === "skipped" ? "" : `, ${formatDuration(result.durationMs)}`;
  return `[${result.index + 1}/${total}] ${title}(${result.language}) — ${result.status}${duration}`;
}

/** A fenced block that stays intact whatever backticks the content holds. */
export function renderCodeBlock(code: string, language: string): string {
  const longestRun = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const body = code.endsWith("\n") ? code : `${code}\n`;
  return `${fence}${language}\n${body}${fence}`;
}

function describeImages(result: CellResult): string[] {
  const lines: string[] = [];
  for (const output of result.outputs) {
    if (output.type !== "display" && output.type !== "result") continue;
    for (const [mime, value] of Object.entries(output.data)) {
      if (!mime.startsWith("image/")) continue;
      const size = typeof value === "string" ? ` ${formatBytes(Math.floor((value.length * 3) / 4))}` : "";
      lines.push(`[image ${mime}${size}]`);
      break;
    }
  }
  return lines;
}

/** The output part of a cell: preview (or everything when expanded), images and notices. */
export function renderToolCellOutput(result: CellResult, options: ToolRenderOptions = {}): string {
  const parts: string[] = [];
  const lines = splitLines(stripAnsi(result.text));
  if (options.expanded) {
    parts.push(...lines);
  } else {
    const { shown, hiddenLines } = collapseLines(lines, options.previewLines ?? TOOL_PREVIEW_LINES);
    parts.push(...shown);
    if (hiddenLines > 0) parts.push(`… ${pluralize(hiddenLines, "more line")} (expand)`);
  }
  if (options.expanded && result.error && !result.text.includes(result.error.ename)) {
    parts.push(...result.error.traceback.flatMap((entry) => splitLines(stripAnsi(entry))));
  }
  parts.push(...describeImages(result));
  for (const notice of collectNotices(result)) parts.push(notice.text);
  return parts.join("\n");
}

/** One cell: header, code block, output and notices. */
export function renderToolCell(cell: ToolRenderCell, options: ToolRenderOptions = {}): string {
  const total = options.total ?? cell.result.index + 1;
  const sections = [
    renderToolCellHeader(cell.result, total),
    renderCodeBlock(cell.code, describeLanguage(cell.result.language)),
  ];
  const output = renderToolCellOutput(cell.result, options);
  if (output !== "") sections.push(output);
  return sections.join("\n");
}

/** A whole call: every cell, separated by blank lines. */
export function renderToolTranscript(
  cells: readonly ToolRenderCell[],
  options: ToolRenderOptions = {},
): string {
  const total = options.total ?? cells.length;
  return cells.map((cell) => renderToolCell(cell, { ...options, total })).join("\n\n");
}
