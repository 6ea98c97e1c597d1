// The output sink: takes a cell's text chunk by chunk, keeps a bounded model view (head, notice, tail) in memory
// and streams the full raw output (secrets redacted) to an artifact once it outgrows that view.
import { EvalkitError } from "../../errors.js";
import { pluralize } from "../../text/text-lines.js";
import { ArtifactSpill } from "../artifacts/artifact-spill.js";
import { OutputWindow } from "./output-window.js";
import { encodeRawBytes, encodeRawBytesTransient, endsWithHighSurrogate } from "./raw-bytes.js";
import {
  createRedactor,
  createStreamRedactor,
  hasSecretsToRedact,
  MIN_SECRET_LENGTH,
  type SecretValue,
  type StreamRedactor,
} from "./redact.js";
import { StreamSanitizer } from "./sanitize.js";
import {
  DEFAULT_HEAD_BYTES,
  DEFAULT_MAX_ARTIFACT_BYTES,
  DEFAULT_SINK_MAX_LINE_CHARS,
  DEFAULT_TAIL_BYTES,
  type OutputSinkOptions,
  type OutputSinkResult,
} from "./sink-options.js";
import { PLAIN_TEXT, smallTextLimit, smallTextResult } from "./sink-short-text.js";

export type { OutputSinkOptions, OutputSinkResult } from "./sink-options.js";

/** What a sink continues from an earlier one's {@link OutputSink.cut}. */
interface ContinuedStream {
  redactor: StreamRedactor;
  pendingHigh: string;
  artifactBytesLeft: number;
}

/** Streams one cell's output into a bounded view plus an artifact. Not reusable: `finish()` once. */
export class OutputSink {
  private readonly options: OutputSinkOptions;
  // Built with the first text that is not short and plain (build()); most cells print a line or show a value.
  private redactor!: StreamRedactor;
  private viewRedact!: (text: string) => string;
  private sanitizer!: StreamSanitizer;
  private window!: OutputWindow;
  private spill!: ArtifactSpill;
  /**
   * The text so far while all of it is printable ASCII (plus `\n`, `\t`), there is nothing to redact and it fits
   * in every budget: its view is itself, so none of the machinery above is needed. Null once it is built.
   */
  private small: string | null = null;
  private readonly smallLimit: number;
  /** The secrets, once read (they may be given as a function: text shorter than any secret never reads them). */
  private secretList: readonly SecretValue[] | undefined;
  /** Whether the secrets hold anything to redact; asked when the short text first reaches a secret's length. */
  private hasSecrets: boolean | undefined;
  private pendingHigh = "";
  /** Characters pushed as plain since the last chunk that was not (all of them at the start). */
  private plainRun = Number.POSITIVE_INFINITY;
  private newlines = 0;
  private isLastNewline = false;
  private result: OutputSinkResult | null = null;

  /**
   * `continued`: the stream goes on from an earlier sink's {@link cut}: its redactor, half a surrogate pair, and
   * what is left of the artifact cap (one cell's output keeps at most `maxArtifactBytes` over all its returns).
   */
  constructor(options: OutputSinkOptions = {}, continued?: ContinuedStream) {
    this.options = options;
    this.smallLimit = continued === undefined ? smallTextLimit(options) : 0;
    if (this.smallLimit > 0) this.small = "";
    else this.build(continued);
  }

  /** The redactor, sanitiser, view window and artifact spill (all but short plain text needs them). */
  private build(continued?: ContinuedStream): void {
    const options = this.options;
    const headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
    const tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
    const cap = options.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    const maxBytes = continued?.artifactBytesLeft ?? cap;
    this.spill = new ArtifactSpill(
      {
        store: options.store,
        artifactDir: options.artifactDir,
        thresholdBytes: options.spillThresholdBytes ?? headBytes + tailBytes,
        maxBytes,
      },
      maxBytes <= 0
        ? `the cell's earlier returns already saved ${cap} bytes, the most one cell's output keeps`
        : null,
    );
    this.redactor = continued?.redactor ?? createStreamRedactor(this.secrets());
    if (continued !== undefined) {
      this.pendingHigh = continued.pendingHigh;
      // What the redactor holds came from chunks this sink never saw: not known to be plain.
      this.plainRun = 0;
    }
    this.window = new OutputWindow(headBytes, tailBytes);
    this.window.onFirstLoss = () => this.spill.open();
    // The raw text is redacted before sanitising; the view is redacted again after, because stripping escape
    // sequences or a `\r` rewrite can join the pieces of a secret (`sk-ab\x1b[0mcdef` shows as `sk-abcdef`).
    // Plain blocks skip it: they had nothing to strip, so the raw pass saw exactly this text.
    this.viewRedact = createRedactor(this.secrets());
    this.sanitizer = new StreamSanitizer(
      (line, dropped) => this.window.addLine(this.viewRedact(line), dropped),
      {
        keepAnsi: options.keepAnsi ?? false,
        controlChars: options.controlChars ?? "placeholder",
        maxLineChars: options.maxLineChars ?? DEFAULT_SINK_MAX_LINE_CHARS,
      },
      (block, lineCount, isAscii) => this.window.addBlock(block, lineCount, isAscii),
    );
  }

  /** The artifact URI once the output has been spilled, else null. */
  get artifactUri(): string | null {
    return this.small === null ? this.spill.uri : null;
  }

  /**
   * Adds a chunk of the cell's text output. `isPlain`: the caller knows it is printable ASCII plus `\n`/`\t`
   * (a stream output's `isPlain` hint), so the sanitiser skips its scan; redaction keeps that true.
   */
  push(text: string, isPlain = false): void {
    if (this.result !== null) throw new EvalkitError("DISPOSED", "OutputSink.push after finish()");
    if (text === "") return;
    if (this.small !== null) {
      const length = this.small.length + text.length;
      if (
        length <= this.smallLimit &&
        (isPlain || PLAIN_TEXT.test(text)) &&
        (length < MIN_SECRET_LENGTH || !this.hasSecretsToRedact())
      ) {
        this.small += text;
        return;
      }
      this.buildFromSmall();
    }
    // The redactor may carry characters of earlier chunks into this output: plain only when those were.
    const charsBefore = this.plainRun;
    this.plainRun = isPlain ? this.plainRun + text.length : 0;
    const isOutputPlain =
      isPlain && this.redactor.isAsciiPreserving && charsBefore >= this.redactor.holdChars;
    this.consume(this.redactor.push(text), isOutputPlain);
  }

  /** The view as it stands now (for live updates); does not end the stream. */
  snapshot(): string {
    if (this.small !== null) this.buildFromSmall();
    const pending = this.sanitizer.hasPendingLine ? this.viewRedact(this.sanitizer.peekPendingLine()) : null;
    return this.compose(this.window.lines(this.omissionNotice, pending), false);
  }

  /** Ends the stream: flushes held text, closes the artifact (or removes it when nothing was lost). */
  finish(): OutputSinkResult {
    if (this.result !== null) return this.result;
    if (this.small !== null) {
      this.result = smallTextResult(this.small);
      return this.result;
    }
    this.consume(this.redactor.flush());
    return this.end();
  }

  /** Builds the machinery and passes it the short plain text taken so far: the same as having pushed it there. */
  private buildFromSmall(): void {
    const text = this.small ?? "";
    this.small = null;
    this.build();
    // Through the redactor as if pushed (plain): the short text may hold the start of a secret the next chunk
    // ends. Without secrets the redactor gives it back as it is.
    const charsBefore = this.plainRun;
    this.plainRun += text.length;
    const isOutputPlain = this.redactor.isAsciiPreserving && charsBefore >= this.redactor.holdChars;
    this.consume(this.redactor.push(text), isOutputPlain);
  }

  private secrets(): readonly SecretValue[] {
    if (this.secretList === undefined) {
      const given = this.options.secrets;
      this.secretList = typeof given === "function" ? given() : (given ?? []);
    }
    return this.secretList;
  }

  private hasSecretsToRedact(): boolean {
    this.hasSecrets ??= hasSecretsToRedact(this.secrets());
    return this.hasSecrets;
  }

  /**
   * A job's return while the cell runs: ends this sink's view and artifact like `finish()`, except that the
   * start of a secret (and half a surrogate pair) at the very end moves on to `next`, which continues the
   * stream, so a secret printed across the return is still redacted and no character is split.
   */
  cut(): { result: OutputSinkResult; next: OutputSink } {
    if (this.result !== null) throw new EvalkitError("DISPOSED", "OutputSink.cut after finish()");
    if (this.small !== null) this.buildFromSmall();
    this.consume(this.redactor.release());
    const pendingHigh = this.pendingHigh;
    this.pendingHigh = "";
    const result = this.end();
    const artifactBytesLeft = this.spill.maxBytes - (result.artifactBytes ?? 0);
    return {
      result,
      next: new OutputSink(this.options, { redactor: this.redactor, pendingHigh, artifactBytesLeft }),
    };
  }

  private end(): OutputSinkResult {
    if (this.pendingHigh !== "") {
      // A high surrogate whose partner never came: count, store and show it like any other text.
      const lone = this.pendingHigh;
      this.pendingHigh = "";
      this.countLines(lone);
      this.spill.write(encodeRawBytes(lone));
      this.sanitizer.push(lone);
    }
    this.sanitizer.end();
    const window = this.window;
    // Before the view is composed: a failed last write must show in its reference to the artifact.
    if (window.hasLoss) this.spill.flush();
    const lines = window.lines(this.omissionNotice, null);
    const omitted = window.omitted();
    if (omitted.lines === 0 && window.clampedLines > 0) lines.push(this.clampNotice());
    const totalBytes = this.spill.totalBytes;
    const result: OutputSinkResult = {
      text: this.compose(lines, true),
      totalBytes,
      totalLines: this.newlines + (totalBytes > 0 && !this.isLastNewline ? 1 : 0),
      omittedLines: omitted.lines,
      omittedBytes: omitted.bytes,
      clampedLines: window.clampedLines,
    };
    const kept = this.spill.end(window.hasLoss);
    if (kept !== null) {
      result.truncated = { artifact: kept.uri, totalBytes, totalLines: result.totalLines };
      result.artifactBytes = kept.bytesWritten;
    }
    const artifactError = this.spill.error;
    if (artifactError !== null) result.artifactError = artifactError;
    this.result = result;
    return result;
  }

  private consume(input: string, isPlain = false): void {
    if (input === "") return;
    const isTextPlain = isPlain && this.pendingHigh === "";
    let text = this.pendingHigh === "" ? input : this.pendingHigh + input;
    this.pendingHigh = "";
    if (endsWithHighSurrogate(text)) {
      this.pendingHigh = text.slice(-1);
      text = text.slice(0, -1);
      if (text === "") return;
    }
    this.countLines(text);
    const spill = this.spill;
    if (isTextPlain && spill.isOpen) spill.writePlain(text);
    else spill.write(encodeRawBytesTransient(text, isTextPlain));
    this.sanitizer.push(text, isTextPlain);
  }

  private countLines(text: string): void {
    let count = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
    this.newlines += count;
    this.isLastNewline = text.charCodeAt(text.length - 1) === 10;
  }

  private readonly omissionNotice = (omittedLines: number, omittedBytes: number): string =>
    `… ${pluralize(omittedLines, "line")} / ${pluralize(omittedBytes, "byte")} omitted; ${this.spill.reference()}`;

  private clampNotice(): string {
    return `… ${pluralize(this.window.clampedLines, "long line")} clamped; ${this.spill.reference()}`;
  }

  private compose(lines: string[], isFinal: boolean): string {
    if (lines.length === 0) return "";
    const endsWithNewline = this.isLastNewline && (isFinal || !this.sanitizer.hasPendingLine);
    return lines.join("\n") + (endsWithNewline ? "\n" : "");
  }
}

/**
 * What `finish()` gives for a sink that never took any text (and has no artifact cap used up by earlier returns):
 * a cell without output needs no sink at all.
 */
export function emptySinkResult(): OutputSinkResult {
  return { text: "", totalBytes: 0, totalLines: 0, omittedLines: 0, omittedBytes: 0, clampedLines: 0 };
}

/** Creates an {@link OutputSink}. */
export function createOutputSink(options: OutputSinkOptions = {}): OutputSink {
  return new OutputSink(options);
}
