// The output sink: takes a cell's text chunk by chunk, keeps a bounded model view (head, notice, tail) in memory
// and streams the full raw output (secrets redacted) to an artifact once it outgrows that view.
import type { TruncationInfo } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import { pluralize } from "../text/text-lines.js";
import { ArtifactSpill } from "./artifact-spill.js";
import type { ArtifactStore } from "./artifact-store.js";
import { OutputWindow } from "./output-window.js";
import { encodeRawBytes, encodeRawBytesTransient, endsWithHighSurrogate } from "./raw-bytes.js";
import {
  createRedactor,
  createStreamRedactor,
  hasSecretsToRedact,
  type SecretValue,
  type StreamRedactor,
} from "./redact.js";
import { type SanitizeOptions, StreamSanitizer } from "./sanitize.js";

/** Default budget of the head of the model view: 20 KiB. */
export const DEFAULT_HEAD_BYTES = 20 * 1024;
/** Default budget of the tail window of the model view: 50 KiB. */
export const DEFAULT_TAIL_BYTES = 50 * 1024;
/** Default longest line in the model view, in characters. */
export const DEFAULT_SINK_MAX_LINE_CHARS = 4000;
/** Default cap on one artifact: 1 GiB (a runaway loop must not fill the disk). */
export const DEFAULT_MAX_ARTIFACT_BYTES = 1024 * 1024 * 1024;

export interface OutputSinkOptions {
  /** Bytes of sanitised text kept from the start (default 20 KiB). */
  headBytes?: number;
  /** Bytes of sanitised text kept from the end (default 50 KiB). */
  tailBytes?: number;
  /** Longest line kept in the view (default 4000 characters); longer ones end with `…[+N chars]`. */
  maxLineChars?: number;
  /** Keep ANSI escape sequences in the view (default false: stripped). */
  keepAnsi?: boolean;
  controlChars?: SanitizeOptions["controlChars"];
  /** Secret values to replace by `[REDACTED:NAME]` in the view and the artifact. */
  secrets?: readonly SecretValue[];
  /** Where artifacts go; default a store on `artifactDir` or `$EVALKIT_HOME/artifacts`, created when needed. */
  store?: ArtifactStore;
  artifactDir?: string;
  /** Raw bytes kept in memory before the artifact is created (default headBytes + tailBytes). */
  spillThresholdBytes?: number;
  /** Most bytes written to one artifact (default 1 GiB); the rest is counted but not stored. */
  maxArtifactBytes?: number;
}

export interface OutputSinkResult {
  /** The model's view: head, omission notice, tail. */
  text: string;
  /** Present when the view lost something (lines omitted or clamped) and the artifact holds it. */
  truncated?: TruncationInfo;
  /** UTF-8 bytes of the output (secrets redacted; undecodable bytes count one each) = the artifact's size. */
  totalBytes: number;
  /** Lines of the output (`\n` count, plus one for an unterminated last line). */
  totalLines: number;
  omittedLines: number;
  /** Bytes of sanitised text left out between head and tail. */
  omittedBytes: number;
  clampedLines: number;
  /** Bytes stored in the artifact, when there is one (less than totalBytes only past maxArtifactBytes). */
  artifactBytes?: number;
  /** Why the artifact could not be written, if it could not. */
  artifactError?: string;
}

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
    this.redactor = continued?.redactor ?? createStreamRedactor(options.secrets ?? []);
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
    this.viewRedact = createRedactor(options.secrets ?? []);
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
      if (this.small.length + text.length <= this.smallLimit && (isPlain || PLAIN_TEXT.test(text))) {
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
    this.consume(text, true);
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

/** Printable ASCII, `\n` and `\t`: text the sanitiser leaves as it is (sanitize.ts). */
const PLAIN_TEXT = /^[\x20-\x7e\n\t]*$/;
/** Short text needs no machinery: a line or a value's repr, far below every default budget. */
const SMALL_TEXT_CHARS = 2048;

/**
 * How much short plain text a sink with these options may keep as it is (0: none): only with nothing to redact
 * and while no budget could cut, clamp or spill it (each is at least this much, or the shortcut is off).
 */
function smallTextLimit(options: OutputSinkOptions): number {
  if (options.secrets !== undefined && hasSecretsToRedact(options.secrets)) return 0;
  if ((options.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES) <= 0) return 0;
  const headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
  return Math.min(
    SMALL_TEXT_CHARS,
    headBytes,
    options.tailBytes ?? DEFAULT_TAIL_BYTES,
    options.maxLineChars ?? DEFAULT_SINK_MAX_LINE_CHARS,
    options.spillThresholdBytes ?? headBytes + (options.tailBytes ?? DEFAULT_TAIL_BYTES),
  );
}

/** finish() of a sink that only took short plain text: its view is the text itself, nothing lost or stored. */
function smallTextResult(text: string): OutputSinkResult {
  let newlines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
  const isLastNewline = text.charCodeAt(text.length - 1) === 10;
  return {
    text,
    totalBytes: text.length,
    totalLines: newlines + (text.length > 0 && !isLastNewline ? 1 : 0),
    omittedLines: 0,
    omittedBytes: 0,
    clampedLines: 0,
  };
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
