// One cell's output in the REPL: live collapsed preview, Out[n], images, and the notices when the cell ends.
import type { TruncationInfo } from "../../contracts/cell-result.js";
import type { KernelOutput, MimeBundle } from "../../contracts/outputs.js";
import { STATUS_MIME } from "../../contracts/outputs.js";
import type { ArtifactStore } from "../../output/artifacts/artifact-store.js";
import { renderBundleTextForTerminal } from "../../output/display/display-render.js";
import { OutputSink } from "../../output/streams/output-sink.js";
import { createPalette } from "../../render/color.js";
import {
  type InteractiveRenderOptions,
  LivePreview,
  renderCellEnd,
  renderImageNotSaved,
  renderImageSaved,
} from "../../render/interactive-render.js";
import type { NoticeSource } from "../../render/notices.js";
import type { ImageOutput } from "./images.js";
import type { Spinner, TerminalOutput } from "./terminal.js";

/** What `%more` can show of the last cell. */
export interface LastCellOutput {
  /** The retained text (head and tail of very long output, every line clamped). */
  text: string;
  /** Lines the live preview held back. */
  hiddenLines: number;
  truncated?: TruncationInfo;
}

/** Bytes of a cell's text kept for `%more` from its start and from its end; the rest goes to an artifact. */
const RETAINED_HEAD_BYTES = 256 * 1024;
const RETAINED_TAIL_BYTES = 256 * 1024;

export interface CellPrinterOptions {
  terminal: TerminalOutput;
  render: InteractiveRenderOptions;
  images: ImageOutput;
  spinner: Spinner;
  artifacts: ArtifactStore;
  /** The number this cell will most likely get (shown as `Out[n]:`). */
  executionCount: number;
}

/** Feeds one running cell's outputs to the terminal; `finish` prints how it ended and returns what `%more` keeps. */
export class CellPrinter {
  private readonly options: CellPrinterOptions;
  private readonly preview: LivePreview;
  private readonly sink: OutputSink;
  private isLineOpen = false;

  constructor(options: CellPrinterOptions) {
    this.options = options;
    this.preview = new LivePreview(options.render);
    // Threshold 0: every cell streams to an artifact at once, so a clamped line is recoverable; it is deleted
    // at the end when nothing was lost.
    this.sink = new OutputSink({
      headBytes: RETAINED_HEAD_BYTES,
      tailBytes: RETAINED_TAIL_BYTES,
      spillThresholdBytes: 0,
      store: options.artifacts,
    });
  }

  /** Set once the real execution count is known (the `done` frame). */
  set executionCount(count: number) {
    this.options.executionCount = count;
  }

  handle(output: KernelOutput): void {
    switch (output.type) {
      case "stream":
        this.pushText(output.name, output.text, output.text);
        return;
      case "display":
      case "result":
        this.showBundle(output.data, output.type === "result");
        return;
      case "error":
      case "clear_output":
        // Errors are shown once the cell ends (traceback then notices); a terminal cannot unprint lines.
        return;
    }
  }

  /** Ends the preview, prints the traceback and notices, and returns what `%more` keeps. */
  finish(source: NoticeSource): LastCellOutput {
    const { terminal, render } = this.options;
    this.options.spinner.stop();
    terminal.write(this.preview.finish());
    const kept = this.sink.finish();
    const end: NoticeSource = { ...source };
    if (kept.truncated) end.truncated = kept.truncated;
    terminal.write(renderCellEnd(end, render));
    return {
      text: kept.text,
      hiddenLines: this.preview.hiddenLines,
      ...(kept.truncated ? { truncated: kept.truncated } : {}),
    };
  }

  /** Text the user saw but the cell did not print (an input() prompt and its answer), for `%more`. */
  recordEcho(text: string): void {
    this.sink.push(text);
  }

  private pushText(name: "stdout" | "stderr", shown: string, plain: string): void {
    if (plain === "") return;
    this.options.terminal.write(this.preview.push({ name, text: shown }));
    this.options.spinner.setHiddenLines(this.preview.hiddenLines);
    this.sink.push(plain);
    this.isLineOpen = !plain.endsWith("\n");
  }

  private showBundle(bundle: MimeBundle, isResult: boolean): void {
    if (STATUS_MIME in bundle && Object.keys(bundle).length === 1) return;
    const { terminal, render, images } = this.options;
    const image = images.pickImage(bundle);
    // A figure's text/plain (`<Figure size 640x480 with 1 Axes>`) says nothing the image does not.
    const markdown = bundle["text/markdown"];
    const text = image
      ? typeof markdown === "string"
        ? markdown
        : ""
      : renderBundleTextForTerminal(bundle).replace(/\n+$/, "");
    if (this.isLineOpen) this.pushText("stdout", "\n", "\n");
    if (text !== "") {
      const prefix = isResult ? this.outPrefix(text) : "";
      const plainPrefix = isResult ? `Out[${this.options.executionCount}]: ` : "";
      this.pushText("stdout", `${prefix}${text}\n`, `${plainPrefix}${text}\n`);
    }
    if (image) {
      const shown = images.show(image.mime, image.data);
      terminal.ensureLineStart();
      if (shown.kind === "inline") {
        terminal.write(shown.text);
        this.sink.push(`[image] ${image.mime} shown inline\n`);
      } else if (shown.kind === "file") {
        terminal.write(`${renderImageSaved(shown.path, shown.mime, render)}\n`);
        this.sink.push(`[image] ${shown.mime} saved to ${shown.path}\n`);
      } else {
        terminal.write(`${renderImageNotSaved(shown.mime, shown.reason, render)}\n`);
        this.sink.push(`[image] ${shown.mime} not saved: ${shown.reason}\n`);
      }
    }
  }

  private outPrefix(text: string): string {
    const label = createPalette(this.options.render).red(`Out[${this.options.executionCount}]:`);
    // A multi-line value starts on its own line, as IPython prints it.
    return text.includes("\n") ? `${label}\n` : `${label} `;
  }
}
