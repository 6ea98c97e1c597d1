// Collects one cell's outputs as they arrive: the bounded, redacted model text (via OutputSink), the images,
// and the structured outputs for `details` (redacted, stream text capped so memory stays bounded).
import type { TruncationInfo } from "../contracts/cell-result.js";
import type { CellOutput, KernelOutput, MimeBundle, StreamOutput } from "../contracts/outputs.js";
import type { ArtifactStore } from "../output/artifacts/artifact-store.js";
import { listBundleImageTypes } from "../output/display/display-images.js";
import {
  collectDisplayParts,
  DEFAULT_MAX_IMAGE_BYTES,
  type DisplayImage,
  type DisplayRenderOptions,
  renderBundleText,
  takeDisplayImage,
} from "../output/display/display-render.js";
import { DisplayRetention } from "../output/display/display-retention.js";
import { toCellOutput } from "../output/display/display-updates.js";
import {
  emptySinkResult,
  OutputSink,
  type OutputSinkOptions,
  type OutputSinkResult,
} from "../output/streams/output-sink.js";
import {
  createRedactor,
  createStreamRedactor,
  MIN_SECRET_LENGTH,
  type SecretValue,
  type StreamRedactor,
} from "../output/streams/redact.js";
import { RETAINED_STREAM_CHARS } from "../output/streams/retained-budget.js";
import { boundErrorInfo, redactDeep } from "./details-redaction.js";
import { applyFinalState } from "./final-state-view.js";
import type { EvalOutputOptions } from "./tool-options.js";

/** What a finished cell hands to the result. */
export interface CollectedCell {
  text: string;
  outputs: CellOutput[];
  images: DisplayImage[];
  truncated?: TruncationInfo;
  /** Facts about the collection itself (artifact could not be written, outputs capped). */
  notices: string[];
}

export interface CellCollectorOptions {
  output: EvalOutputOptions;
  /** The values to redact, or a function giving them, called when the first output arrives (not before). */
  secrets: readonly SecretValue[] | (() => readonly SecretValue[]);
  artifactsDir: string | undefined;
  store: ArtifactStore | undefined;
  /** Sees each output as it arrives, redacted: stream text in order (past the retain cap too), then the rest. */
  onOutput?: (output: CellOutput) => void;
}

/** One cell's collector. `add()` each output in order, `finish()` once. */
export class CellCollector {
  /** Made with the first text: a cell without output (`x = 1`) needs none. */
  private sink: OutputSink | undefined;
  private readonly sinkOptions: OutputSinkOptions;
  /** Made with the first output that needs it, from the secrets read then. */
  private redactor: ((text: string) => string) | undefined;
  private secretList: readonly SecretValue[] | undefined;
  /** Made on a stream's first text: most cells print to one stream or none. */
  private readonly streamRedactors: Partial<Record<"stdout" | "stderr", StreamRedactor>> = {};
  private outputs: CellOutput[] = [];
  private retention = new DisplayRetention(this.outputs);
  private images: DisplayImage[] = [];
  private readonly retainLimit: number;
  private readonly maxImageBytes: number;
  private retainedChars = 0;
  private isRetainCapped = false;
  private hasRewrites = false;
  private sawError = false;
  private lastChar = "\n";
  private openStream: StreamOutput | undefined;

  constructor(private readonly options: CellCollectorOptions) {
    const out = options.output;
    this.sinkOptions = {};
    if (out.headBytes !== undefined) this.sinkOptions.headBytes = out.headBytes;
    if (out.tailBytes !== undefined) this.sinkOptions.tailBytes = out.tailBytes;
    if (out.maxLineChars !== undefined) this.sinkOptions.maxLineChars = out.maxLineChars;
    if (out.keepAnsi !== undefined) this.sinkOptions.keepAnsi = out.keepAnsi;
    if (options.store !== undefined) this.sinkOptions.store = options.store;
    else if (options.artifactsDir !== undefined) this.sinkOptions.artifactDir = options.artifactsDir;
    // The one budget of retained stream text (characters), unless the tool's options set another.
    this.retainLimit = out.retainStreamChars ?? RETAINED_STREAM_CHARS;
    this.maxImageBytes = out.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  }

  private get secrets(): readonly SecretValue[] {
    if (this.secretList === undefined) {
      const given = this.options.secrets;
      this.secretList = typeof given === "function" ? given() : given;
    }
    return this.secretList;
  }

  private readonly redact = (text: string): string => {
    // Shorter than any secret it can hide: `2`, `True`, a short key need not read the environment.
    if (text.length < MIN_SECRET_LENGTH) return text;
    this.redactor ??= createRedactor(this.secrets);
    return this.redactor(text);
  };

  /** Adds one output as the kernel produced it. */
  add(raw: KernelOutput | CellOutput): void {
    if (raw.type === "stream") {
      if (raw.text === "") return;
      this.pushText(raw.text, raw.isPlain === true);
      this.retainStream(raw.name, raw.text);
      return;
    }
    this.closeStream();
    const output = toCellOutput(raw);
    switch (output.type) {
      case "status":
        this.retention.keep(redactDeep(output, this.redact) as CellOutput);
        return;
      case "clear_output":
        this.hasRewrites = true;
        this.retention.keep(output);
        this.options.onOutput?.(output);
        return;
      case "error": {
        this.sawError = true;
        const error: CellOutput = { type: "error", ...boundErrorInfo(output, this.redact) };
        this.retention.keep(error);
        this.options.onOutput?.(error);
        this.pushBlock(
          output.traceback.length > 0 ? output.traceback.join("\n") : `${output.ename}: ${output.evalue}`,
        );
        return;
      }
      case "stream":
        // toCellOutput never turns a display into a stream; streams were handled above.
        return;
      case "display":
      case "result": {
        if (output.update) this.hasRewrites = true;
        const data = redactDeep(output.data, this.redact) as MimeBundle;
        const kept = { ...output, data };
        if (output.metadata)
          kept.metadata = redactDeep(output.metadata, this.redact) as Record<string, unknown>;
        this.retention.keep(kept);
        this.options.onOutput?.(kept);
        const lines: string[] = [];
        // The redacted bundle: an SVG is text and may carry a secret into the images as much as into details.
        const text = renderBundleText(data, this.renderOptions());
        if (text) lines.push(text);
        for (const mime of listBundleImageTypes(data)) lines.push(...this.takeImage(mime, data[mime]));
        if (lines.length > 0) this.pushBlock(lines.join("\n"));
      }
    }
  }

  /** True once an error output was added. */
  get hasError(): boolean {
    return this.sawError;
  }

  /** The text so far (for live updates). */
  snapshot(): string {
    return this.sink?.snapshot() ?? "";
  }

  /**
   * A job's return while the cell runs: hands over everything since the previous cut as if the cell had ended
   * there (own text budget, own artifact) and starts afresh, so memory never holds more than one return's view.
   */
  cut(): CollectedCell {
    // The start of a secret at the very end waits for the next return, where the rest of it may follow.
    const open = this.openStream;
    if (open !== undefined) this.appendRetained(open.name, this.streamRedactor(open.name).release());
    this.openStream = undefined;
    let collected: CollectedCell;
    if (this.sink === undefined) {
      collected = this.collect(emptySinkResult());
    } else {
      const { result, next } = this.sink.cut();
      collected = this.collect(result);
      this.sink = next;
    }
    // Whatever that stream's redactor still holds comes out in the next return's outputs.
    if (open !== undefined) this.openStream = { type: "stream", name: open.name, text: "" };
    this.outputs = [];
    this.retention = new DisplayRetention(this.outputs);
    this.images = [];
    this.retainedChars = 0;
    this.isRetainCapped = false;
    this.hasRewrites = false;
    return collected;
  }

  /** Ends the cell: closes the sink (artifact) and returns text, outputs and images. */
  finish(): CollectedCell {
    this.closeStream();
    return this.collect(this.sink?.finish() ?? emptySinkResult());
  }

  private collect(result: OutputSinkResult): CollectedCell {
    const notices: string[] = [];
    if (result.artifactError !== undefined)
      notices.push(`full output could not be saved: ${result.artifactError}`);
    if (this.isRetainCapped) {
      const where = result.truncated ? ` (full output: ${result.truncated.artifact})` : "";
      notices.push(
        `stream output past ${this.retainLimit.toLocaleString("en-US")} characters is not kept in details.outputs${where}`,
      );
    }
    const collected: CollectedCell = {
      text: result.text,
      outputs: this.outputs,
      images: this.images,
      notices,
    };
    if (result.truncated) collected.truncated = result.truncated;
    const dropped = this.retention.budget.describe("details.outputs");
    if (dropped)
      notices.push(`${dropped}${result.truncated ? ` (full output: ${result.truncated.artifact})` : ""}`);
    if (this.hasRewrites)
      applyFinalState(collected, result, this.finalStateParts(), this.sinkOptions, this.isRetainCapped);
    return collected;
  }

  private finalStateParts(): ReturnType<typeof collectDisplayParts> {
    // With the stream text capped, the final state is of the displays only (the view keeps the streams' ends).
    const outputs = this.isRetainCapped ? this.outputs.filter((o) => o.type !== "stream") : this.outputs;
    return collectDisplayParts(outputs, this.renderOptions());
  }

  private renderOptions(): DisplayRenderOptions {
    const options: DisplayRenderOptions = { maxImageBytes: this.maxImageBytes };
    if (this.options.output.jsonTextLimit !== undefined)
      options.jsonTextLimit = this.options.output.jsonTextLimit;
    if (this.options.output.maxImages !== undefined) options.maxImages = this.options.output.maxImages;
    return options;
  }

  private takeImage(mimeType: string, value: unknown): string[] {
    const taken = takeDisplayImage(mimeType, value, this.images.length, this.renderOptions());
    if (!taken) return [];
    if (taken.image) this.images.push(taken.image);
    return [taken.line];
  }

  /** Rich outputs and errors stand on their own lines. */
  private pushBlock(text: string): void {
    if (this.lastChar !== "\n") this.pushText("\n");
    this.pushText(text.endsWith("\n") ? text : `${text}\n`);
  }

  private pushText(text: string, isPlain = false): void {
    if (text === "") return;
    if (this.sink === undefined) {
      // Read by the sink only once its text is as long as a secret (a short result never reads them).
      this.sinkOptions.secrets = () => this.secrets;
      this.sink = new OutputSink(this.sinkOptions);
    }
    this.sink.push(text, isPlain);
    this.lastChar = text[text.length - 1]!;
  }

  private retainStream(name: "stdout" | "stderr", text: string): void {
    // Past the cap nothing more is kept, so there is nothing to redact either (unless someone watches live).
    if (this.isRetainCapped && !this.options.onOutput) return;
    if (this.openStream && this.openStream.name !== name) this.closeStream();
    this.openStream ??= this.openRetained(name);
    this.appendRetained(name, this.streamRedactor(name).push(text));
  }

  /** Releases the text a stream redactor held back, so the next output lands after it. */
  private closeStream(): void {
    const open = this.openStream;
    if (!open) return;
    this.appendRetained(open.name, this.streamRedactor(open.name).flush());
    this.openStream = undefined;
  }

  private streamRedactor(name: "stdout" | "stderr"): StreamRedactor {
    let redactor = this.streamRedactors[name];
    if (redactor === undefined) {
      redactor = createStreamRedactor(this.secrets);
      this.streamRedactors[name] = redactor;
    }
    return redactor;
  }

  /** A new stream output; it joins `outputs` with its first text (never past the cap: then only live listeners see it). */
  private openRetained(name: "stdout" | "stderr"): StreamOutput {
    return { type: "stream", name, text: "" };
  }

  private appendRetained(name: "stdout" | "stderr", text: string): void {
    if (text !== "") this.options.onOutput?.({ type: "stream", name, text });
    if (this.isRetainCapped) return;
    this.openStream ??= this.openRetained(name);
    if (text === "") return;
    if (this.openStream.text === "") this.outputs.push(this.openStream);
    const room = this.retainLimit - this.retainedChars;
    const kept = text.length <= room ? text : text.slice(0, Math.max(0, room));
    this.openStream.text += kept;
    this.retainedChars += kept.length;
    if (kept.length < text.length) {
      this.isRetainCapped = true;
      this.openStream.text += "\n… [further stream output not kept here; see the cell's text / artifact]\n";
    }
  }
}
