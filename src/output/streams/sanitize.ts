// The model's view of program text: CRLF and `\r` progress rewrites collapsed, ANSI and control characters
// handled, lone surrogates replaced; streaming (chunks may split anything) with every line clamped.
import { ANSI_SEQUENCE_SOURCE, ANSI_UNFINISHED_TAIL, stripAnsi } from "../../text/ansi.js";
import { cutIndex, formatClampMarker } from "../../text/text-lines.js";
import { endsWithHighSurrogate } from "./raw-bytes.js";

/** How the sanitiser treats text. */
export interface SanitizeOptions {
  /** Keep ANSI escape sequences (colours) instead of removing them. Default false. */
  keepAnsi?: boolean;
  /**
   * Other control characters (not `\n`, `\t`): `"placeholder"` (default) shows C0/DEL as the Unicode control
   * pictures (`␇` for BEL, `␛` for a stray ESC) and C1 controls as `�`; `"remove"` drops them.
   */
  controlChars?: "placeholder" | "remove";
  /** Longest line kept, in UTF-16 units; longer lines end with `…[+N chars]`. Default: no limit. */
  maxLineChars?: number;
}

/** Receives each finished line (no `\n`); `droppedChars` > 0 when the line was clamped. */
export type SanitizedLineHandler = (line: string, droppedChars: number) => void;

/** Receives a run of complete lines that needed no cleaning and no clamping; `block` ends with `\n`. */
export type SanitizedBlockHandler = (block: string, lineCount: number, isAscii: boolean) => void;

/** Longest unfinished escape sequence held back waiting for the next chunk. */
const MAX_HELD_ESCAPE = 4096;
const ANSI_GLOBAL = new RegExp(ANSI_SEQUENCE_SOURCE, "g");
/** Anything that needs more than line splitting: CR, controls, ESC, C1, surrogates. */
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]/;
const CONTROL_WITH_ESC = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
const CONTROL_KEEP_ESC = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function controlPicture(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return "\ufffd";
}

/**
 * Streaming sanitiser. Feed chunks with `push`, call `end` once; finished lines go to `onLine`. Per line, the
 * text after the last `\r` wins (a `\r` followed by nothing visible keeps the earlier text, so `\r\n` and a
 * trailing `\r` behave like a terminal). Memory per line is bounded by `maxLineChars`.
 */
export class StreamSanitizer {
  private readonly keepAnsi: boolean;
  private readonly removeControls: boolean;
  private readonly maxLineChars: number;
  private readonly onLine: SanitizedLineHandler;
  private readonly onBlock: SanitizedBlockHandler | null;
  private held = "";
  /** Last visible segment of the current line, ended by `\r`. */
  private committed = "";
  private committedDropped = 0;
  /** Segment being written since the last `\r`. */
  private current = "";
  private currentDropped = 0;
  private isLineStarted = false;

  /** `onBlock`, when given, receives runs of plain lines in one call (much cheaper than a call per line). */
  constructor(onLine: SanitizedLineHandler, options: SanitizeOptions = {}, onBlock?: SanitizedBlockHandler) {
    this.onLine = onLine;
    this.onBlock = onBlock ?? null;
    this.keepAnsi = options.keepAnsi ?? false;
    this.removeControls = options.controlChars === "remove";
    this.maxLineChars = options.maxLineChars ?? Number.POSITIVE_INFINITY;
  }

  /** True when text of an unfinished line is pending. */
  get hasPendingLine(): boolean {
    return this.isLineStarted;
  }

  /** The unfinished line as it would be emitted now (for live snapshots). */
  peekPendingLine(): string {
    const [text, dropped] = this.resolveLine();
    return dropped > 0 ? text + formatClampMarker(dropped) : text;
  }

  /** `isPlain`: the caller knows the chunk is printable ASCII plus `\n`/`\t` (the scan is skipped). */
  push(chunk: string, isPlain = false): void {
    if (chunk === "") return;
    if (isPlain && this.held === "") {
      this.consumePlain(chunk, true);
      return;
    }
    const text = this.held === "" ? chunk : this.held + chunk;
    this.held = "";
    if (NEEDS_WORK.test(text)) this.consumeLines(this.clean(text));
    else this.consumePlain(text);
  }

  /** Plain text: the first and last pieces join the line state, the lines between go out as one block. */
  private consumePlain(text: string, isAscii = false): void {
    const firstNl = text.indexOf("\n");
    const lastNl = firstNl === -1 ? -1 : text.lastIndexOf("\n");
    if (this.onBlock === null || lastNl <= firstNl) {
      this.consumeLines(text);
      return;
    }
    if (firstNl > 0) this.appendPiece(text, 0, firstNl);
    this.emitLine();
    const blockStart = firstNl + 1;
    const blockEnd = lastNl + 1;
    if (blockEnd > blockStart) {
      let lineCount = 0;
      let isClampNeeded = false;
      let lineStart = blockStart;
      for (
        let nl = text.indexOf("\n", blockStart);
        nl !== -1 && nl < blockEnd;
        nl = text.indexOf("\n", nl + 1)
      ) {
        if (nl - lineStart > this.maxLineChars) isClampNeeded = true;
        lineCount++;
        lineStart = nl + 1;
      }
      const block = text.slice(blockStart, blockEnd);
      if (isClampNeeded) this.consumeLines(block);
      else this.onBlock(block, lineCount, isAscii);
    }
    if (blockEnd < text.length) this.appendPiece(text, blockEnd, text.length);
  }

  /** Flushes held bytes and the unfinished line. */
  end(): void {
    if (this.held !== "") {
      const rest = this.held;
      this.held = "";
      this.consumeLines(this.cleanFinal(rest));
    }
    if (this.isLineStarted) this.emitLine();
  }

  private clean(input: string): string {
    let text = input;
    if (endsWithHighSurrogate(text)) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (!this.keepAnsi && (text.includes("\x1b") || text.includes("\x9b"))) {
      text = text.replace(ANSI_GLOBAL, "");
      const tail = ANSI_UNFINISHED_TAIL.exec(text);
      if (tail !== null && tail[0].length <= MAX_HELD_ESCAPE) {
        this.held = tail[0] + this.held;
        text = text.slice(0, tail.index);
      }
    }
    return this.replaceControls(text);
  }

  private cleanFinal(input: string): string {
    const text = this.keepAnsi ? input : input.replace(ANSI_GLOBAL, "");
    return this.replaceControls(text);
  }

  private replaceControls(input: string): string {
    let text = input.replace(LONE_SURROGATE, "\ufffd");
    const pattern = this.keepAnsi ? CONTROL_KEEP_ESC : CONTROL_WITH_ESC;
    text = text.replace(pattern, (ch) => (this.removeControls ? "" : controlPicture(ch)));
    return text;
  }

  /** Splits on `\n` (line ends) and `\r` (segment ends) without a per-character loop. */
  private consumeLines(text: string): void {
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf("\n", start);
      const end = nl === -1 ? text.length : nl;
      if (end > start) this.appendPiece(text, start, end);
      if (nl === -1) break;
      this.emitLine();
      start = nl + 1;
    }
  }

  private appendPiece(text: string, start: number, end: number): void {
    this.isLineStarted = true;
    let from = start;
    let cr = text.indexOf("\r", from);
    while (cr !== -1 && cr < end) {
      this.appendToSegment(text, from, cr);
      this.endSegment();
      from = cr + 1;
      cr = text.indexOf("\r", from);
    }
    this.appendToSegment(text, from, end);
  }

  private appendToSegment(text: string, start: number, end: number): void {
    if (end <= start) return;
    // Once a segment was clamped, later text is dropped too: a cut that stopped short of a surrogate pair
    // leaves room that a later chunk must not fill (the result would depend on chunking).
    const room = this.currentDropped > 0 ? 0 : this.maxLineChars - this.current.length;
    if (end - start <= room) {
      this.current += start === 0 && end === text.length ? text : text.slice(start, end);
      return;
    }
    if (room > 0) {
      const piece = text.slice(start, start + room + 1);
      const cut = cutIndex(piece, room);
      this.current += piece.slice(0, cut);
      this.currentDropped += end - start - cut;
    } else {
      this.currentDropped += end - start;
    }
  }

  private endSegment(): void {
    if (this.isVisible(this.current) || this.currentDropped > 0) {
      this.committed = this.current;
      this.committedDropped = this.currentDropped;
    }
    this.current = "";
    this.currentDropped = 0;
  }

  private isVisible(segment: string): boolean {
    if (segment === "") return false;
    return !this.keepAnsi || stripAnsi(segment) !== "";
  }

  private resolveLine(): [string, number] {
    if (this.isVisible(this.current) || this.currentDropped > 0) return [this.current, this.currentDropped];
    return [this.committed, this.committedDropped];
  }

  private emitLine(): void {
    const [text, dropped] = this.resolveLine();
    this.committed = "";
    this.committedDropped = 0;
    this.current = "";
    this.currentDropped = 0;
    this.isLineStarted = false;
    this.onLine(dropped > 0 ? text + formatClampMarker(dropped) : text, dropped);
  }
}

/** Sanitises a whole text at once (same rules as the stream); keeps a trailing newline if there was one. */
export function sanitizeText(text: string, options: SanitizeOptions = {}): string {
  const lines: string[] = [];
  const sanitizer = new StreamSanitizer((line) => lines.push(line), options);
  sanitizer.push(text);
  const endsWithNewline = text.endsWith("\n");
  sanitizer.end();
  return lines.join("\n") + (endsWithNewline && lines.length > 0 ? "\n" : "");
}
