// The terminal renderer for `evalkit repl`: live output with a 20-line preview, clamped lines, coloured notices.
import type { CellErrorInfo } from "../contracts/outputs.js";
import { ANSI_UNFINISHED_TAIL, stripAnsi } from "../text/ansi.js";
import {
  clampLine,
  DEFAULT_MAX_LINE_CHARS,
  formatClampMarker,
  formatDuration,
  pluralize,
  splitLines,
} from "../text/text-lines.js";
import { createPalette, type Palette } from "./color.js";
import { collectNotices, type Notice, type NoticeKind, type NoticeSource } from "./notices.js";

/** Lines of a cell's output shown live before the rest is held back for `%more`. */
export const INTERACTIVE_PREVIEW_LINES = 20;

export interface InteractiveRenderOptions {
  /** Emit ANSI colours (decide with `shouldUseColor`). Program colours are also stripped when false. */
  color: boolean;
  /** Lines shown before collapsing (default 20). */
  maxLines?: number;
  /** Longest line shown (default 4000 characters). */
  maxLineChars?: number;
  /** The command that shows the rest (default `%more`). */
  moreCommand?: string;
}

/** A piece of stream output, as the kernel reports it. */
export interface StreamChunk {
  name: "stdout" | "stderr";
  text: string;
}

/** `… 80 more lines hidden; type %more to see them`. */
export function renderMoreNotice(hiddenLines: number, options: InteractiveRenderOptions): string {
  const palette = createPalette(options);
  const command = options.moreCommand ?? "%more";
  return palette.dim(`… ${pluralize(hiddenLines, "more line")} hidden; type ${command} to see them`);
}

/**
 * Live output for one cell: `push` returns what to write to the terminal now, `finish` what to write at the
 * end (a newline if needed and the `%more` notice). Shows the first `maxLines` lines, clamps each line to
 * `maxLineChars` (the marker is written when the line ends) and colours stderr red.
 */
export class LivePreview {
  private readonly options: InteractiveRenderOptions;
  private readonly palette: Palette;
  private readonly maxLines: number;
  private readonly maxLineChars: number;
  private shownLines = 0;
  private column = 0;
  private droppedInLine = 0;
  private isLineOpen = false;
  private heldEscape = "";
  /** Lines not shown because the preview was full. */
  hiddenLines = 0;

  constructor(options: InteractiveRenderOptions) {
    this.options = options;
    this.palette = createPalette(options);
    this.maxLines = options.maxLines ?? INTERACTIVE_PREVIEW_LINES;
    this.maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  }

  /** True once output was held back. */
  get isCollapsed(): boolean {
    return this.hiddenLines > 0;
  }

  push(chunk: StreamChunk): string {
    let text = this.heldEscape + chunk.text;
    this.heldEscape = "";
    if (!this.options.color) {
      text = stripAnsi(text);
      const tail = ANSI_UNFINISHED_TAIL.exec(text);
      if (tail !== null && tail[0].length < 256) {
        this.heldEscape = tail[0];
        text = text.slice(0, tail.index);
      }
    }
    let out = "";
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf("\n", start);
      const end = nl === -1 ? text.length : nl;
      out += this.take(text.slice(start, end));
      if (nl === -1) break;
      out += this.endLine();
      start = nl + 1;
    }
    return chunk.name === "stderr" && out !== "" ? this.palette.red(out) : out;
  }

  /** Closes the preview: finishes an open line and adds the `%more` notice when lines were held back. */
  finish(): string {
    let out = "";
    if (this.isLineOpen) {
      if (this.shownLines >= this.maxLines) this.hiddenLines++;
      else out += this.droppedInLine > 0 ? `${formatClampMarker(this.droppedInLine)}\n` : "\n";
      this.isLineOpen = false;
    }
    if (this.hiddenLines > 0) out += `${renderMoreNotice(this.hiddenLines, this.options)}\n`;
    return out;
  }

  private take(piece: string): string {
    if (piece === "") return "";
    this.isLineOpen = true;
    if (this.shownLines >= this.maxLines) return "";
    const cr = piece.lastIndexOf("\r");
    if (cr !== -1) {
      // A carriage return rewrites the line (progress bars): the terminal starts again at column 0.
      let out = "";
      for (const segment of piece.slice(0, cr).split("\r")) {
        out += `${this.takeSegment(segment)}\r`;
        this.column = 0;
        this.droppedInLine = 0;
      }
      return out + this.takeSegment(piece.slice(cr + 1));
    }
    return this.takeSegment(piece);
  }

  private takeSegment(piece: string): string {
    const room = this.maxLineChars - this.column;
    if (piece.length <= room) {
      this.column += piece.length;
      return piece;
    }
    const shown = room > 0 ? piece.slice(0, room) : "";
    this.column += shown.length;
    this.droppedInLine += piece.length - shown.length;
    return shown;
  }

  private endLine(): string {
    const wasShown = this.shownLines < this.maxLines;
    const marker = this.droppedInLine > 0 ? this.palette.dim(formatClampMarker(this.droppedInLine)) : "";
    this.column = 0;
    this.droppedInLine = 0;
    this.isLineOpen = false;
    if (!wasShown) {
      this.hiddenLines++;
      return "";
    }
    this.shownLines++;
    return `${marker}\n`;
  }
}

/** A whole text collapsed to the preview: the first lines (clamped) and how many were held back. */
export function collapseForTerminal(
  text: string,
  options: InteractiveRenderOptions,
): { text: string; hiddenLines: number } {
  const preview = new LivePreview(options);
  const shown = preview.push({ name: "stdout", text }) + preview.finish();
  return { text: shown, hiddenLines: preview.hiddenLines };
}

/** Everything retained, each line clamped (what `%more` prints). */
export function renderExpandedOutput(text: string, options: InteractiveRenderOptions): string {
  const plain = options.color ? text : stripAnsi(text);
  const lines = splitLines(plain).map((line) =>
    clampLine(line, options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS),
  );
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

const FRAME_LINE = /^(\s*File )"([^"]+)", line (\d+)(.*)$/;

/** A traceback for the terminal: frames dimmed with file and line highlighted, the final error line bold red. */
export function renderTraceback(error: CellErrorInfo, options: InteractiveRenderOptions): string {
  const palette = createPalette(options);
  const lines = error.traceback.flatMap((entry) => splitLines(entry));
  if (lines.some((line) => line.includes("\x1b["))) {
    // Already coloured by the kernel (IPython style): keep its colours or drop them all.
    const text = lines.join("\n");
    return `${options.color ? text : stripAnsi(text)}\n`;
  }
  const last = `${error.ename}${error.evalue === "" ? "" : `: ${error.evalue}`}`;
  const out = lines.map((line) => {
    if (line === last || line.startsWith(`${error.ename}:`)) return palette.boldRed(line);
    const frame = FRAME_LINE.exec(line);
    if (frame !== null) {
      const [, lead, file, lineNo, rest] = frame;
      return `${lead}"${palette.cyan(file ?? "")}", line ${palette.green(lineNo ?? "")}${rest ?? ""}`;
    }
    return line.startsWith("Traceback") ? palette.bold(line) : line;
  });
  if (!lines.some((line) => line === last || line.startsWith(`${error.ename}:`)))
    out.push(palette.boldRed(last));
  return `${out.join("\n")}\n`;
}

const NOTICE_COLOR: Record<NoticeKind, keyof Omit<Palette, "isEnabled">> = {
  error: "boldRed",
  timeout: "yellow",
  cancelled: "yellow",
  killed: "boldRed",
  died: "boldRed",
  skipped: "dim",
  truncated: "cyan",
  note: "dim",
};

/** One notice line, coloured by its kind. */
export function renderNotice(notice: Notice, options: InteractiveRenderOptions): string {
  const palette = createPalette(options);
  return palette[NOTICE_COLOR[notice.kind]](notice.text);
}

/**
 * What the terminal shows after a cell ends: the coloured traceback for an error, then the status,
 * truncation (with the `artifact://` id) and other notices, one per line.
 */
export function renderCellEnd(source: NoticeSource, options: InteractiveRenderOptions): string {
  let out = "";
  // An interrupted cell shows its KeyboardInterrupt traceback too: the line it was on, as Python prints it.
  const showsTraceback =
    source.status === "error" || source.status === "cancelled" || source.status === "timeout";
  if (showsTraceback && source.error) out += renderTraceback(source.error, options);
  for (const notice of collectNotices(source)) {
    if (notice.kind === "error" && source.error) continue;
    out += `${renderNotice(notice, options)}\n`;
  }
  return out;
}

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** `⠹ running 3.2 s` for the given animation tick; the caller redraws it in place. */
export function formatSpinner(tick: number, elapsedMs: number, options: InteractiveRenderOptions): string {
  const frame =
    SPINNER_FRAMES[((tick % SPINNER_FRAMES.length) + SPINNER_FRAMES.length) % SPINNER_FRAMES.length];
  return createPalette(options).dim(`${frame} running ${formatDuration(elapsedMs)}`);
}

/** `[image] image/png saved to /tmp/plot.png` for terminals that cannot show images inline. */
export function renderImageSaved(path: string, mime: string, options: InteractiveRenderOptions): string {
  return createPalette(options).cyan(`[image] ${mime} saved to ${path}`);
}

/** `[image] image/png not saved: <why>` when the image file could not be written. */
export function renderImageNotSaved(mime: string, reason: string, options: InteractiveRenderOptions): string {
  return createPalette(options).yellow(`[image] ${mime} not saved: ${reason}`);
}
