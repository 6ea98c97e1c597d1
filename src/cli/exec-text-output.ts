// `evalkit exec` text mode: prints each cell's output as it is produced, saves images to files, then notices.
import type { CellLanguage, CellResult } from "../contracts/cell-result.js";
import { type MimeBundle, STATUS_MIME } from "../contracts/outputs.js";
import { renderBundleTextForTerminal } from "../output/display/display-render.js";
import { collectNotices } from "../render/notices.js";
import { stripAnsi } from "../text/ansi.js";
import type { EvalOutputEvent, EvalProgress } from "../tool/run-call.js";
import type { ImageOutput } from "./repl/images.js";

/** What the printer needs to know of each cell before it runs (for its header). */
export interface ExecCellLabel {
  language: CellLanguage;
  title?: string;
}

/**
 * Writes a run to the terminal while it happens. With several cells each gets a header when it starts
 * (`[2/3] load.py (py)`); stream text goes out as it arrives, so a long loop shows progress; an image is saved
 * to a file and named on one line (`[image] image/png saved to PATH`); when a cell ends, its notices follow
 * (`[error] …`, `[timeout] …`). Everything is on stdout, in the order it happened.
 */
export class ExecTextOutput {
  private headed = -1;
  private ended = 0;
  private isLineOpen = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly cells: readonly ExecCellLabel[],
    private readonly images: ImageOutput,
  ) {}

  /** A live update: cells that finished since the last one end, the running cell gets its header. */
  update(progress: EvalProgress): void {
    this.endUpTo(progress.details.cells);
    if (progress.running) this.head(progress.running.index);
  }

  /** One output of the running cell. */
  output({ index, output }: EvalOutputEvent): void {
    this.head(index);
    switch (output.type) {
      case "stream":
        this.text(output.text);
        return;
      case "error":
        this.block(
          output.traceback.length > 0
            ? output.traceback.map((line) => stripAnsi(line)).join("\n")
            : `${output.ename}: ${output.evalue}`,
        );
        return;
      case "display":
      case "result":
        this.bundle(output.data);
        return;
      default:
        // clear_output and status events change nothing on a terminal that only appends.
        return;
    }
  }

  /** The run ended: whatever was not ended yet (the last cell, skipped cells) ends now. */
  finish(cells: readonly CellResult[]): void {
    this.endUpTo(cells);
  }

  private head(index: number): void {
    while (this.headed < index) {
      this.headed += 1;
      if (this.cells.length <= 1) continue;
      const cell = this.cells[this.headed];
      const title = cell?.title ? `${cell.title} ` : "";
      this.block(`[${this.headed + 1}/${this.cells.length}] ${title}(${cell?.language ?? "py"})`);
    }
  }

  private endUpTo(cells: readonly CellResult[]): void {
    for (; this.ended < cells.length; this.ended++) {
      const cell = cells[this.ended]!;
      if (cell.status === "skipped" && this.headed < cell.index && this.cells.length > 1) {
        this.headed = cell.index;
        const title = cell.title ? `${cell.title} ` : "";
        this.block(`[${cell.index + 1}/${this.cells.length}] ${title}(${cell.language}) — skipped`);
        continue;
      }
      this.head(cell.index);
      // Everything was printed as it came, so the truncation of the model's copy is no news here.
      const notices = collectNotices(cell).filter((notice) => notice.kind !== "truncated");
      for (const notice of notices) this.block(notice.text);
    }
  }

  private bundle(data: MimeBundle): void {
    if (STATUS_MIME in data && Object.keys(data).length === 1) return;
    const image = this.images.pickImage(data);
    // A figure's text/plain (`<Figure size 640x480 with 1 Axes>`) says nothing the image line does not.
    const markdown = data["text/markdown"];
    const text = image ? (typeof markdown === "string" ? markdown : "") : renderBundleTextForTerminal(data);
    if (text !== "") this.block(stripAnsi(text));
    if (image) {
      const shown = this.images.show(image.mime, image.data);
      if (shown.kind === "file") this.block(`[image] ${shown.mime} saved to ${shown.path}`);
      else if (shown.kind === "failed") this.block(`[image] ${shown.mime} not saved: ${shown.reason}`);
    }
  }

  /** Text that stands on its own lines. */
  private block(text: string): void {
    if (this.isLineOpen) this.text("\n");
    this.text(text.endsWith("\n") ? text : `${text}\n`);
  }

  private text(text: string): void {
    if (text === "") return;
    this.write(text);
    this.isLineOpen = !text.endsWith("\n");
  }
}
