// The REPL's view of its terminal: writes that track the cursor column, and the spinner drawn over a blank line.
import { formatSpinner, type InteractiveRenderOptions } from "../../render/interactive-render.js";
import { pluralize } from "../../text/text-lines.js";

/** A stream the REPL writes to (process.stdout, or a fake in tests). */
export interface TerminalStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Writes to the terminal and remembers whether the cursor sits at the start of a line. */
export class TerminalOutput {
  readonly stream: TerminalStream;
  private atLineStart = true;
  private beforeWrite: (() => void) | undefined;

  constructor(stream: TerminalStream) {
    this.stream = stream;
  }

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  get isAtLineStart(): boolean {
    return this.atLineStart;
  }

  /** Something drawn over the current line (the spinner) registers how to erase itself before real output. */
  setOverlay(erase: (() => void) | undefined): void {
    this.beforeWrite = erase;
  }

  write(text: string): void {
    if (text === "") return;
    this.beforeWrite?.();
    this.stream.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  /** Starts a new line unless the cursor already is at the start of one. */
  ensureLineStart(): void {
    if (!this.atLineStart) this.write("\n");
  }

  /** Readline (or the user's Enter) moved the cursor to a fresh line. */
  markLineStart(): void {
    this.atLineStart = true;
  }
}

const TICK_MS = 100;
const SHOW_AFTER_MS = 1000;

/**
 * `⠹ running 3.2 s` on its own line while a cell runs longer than a second (or has held output back), redrawn
 * in place and erased before any other output. Only on a TTY, and only when the cursor is at the start of a
 * line, so it never overwrites a partial line the cell printed.
 */
export class Spinner {
  private readonly terminal: TerminalOutput;
  private readonly render: InteractiveRenderOptions;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private tick = 0;
  private isVisible = false;
  private hiddenLines = 0;

  constructor(terminal: TerminalOutput, render: InteractiveRenderOptions) {
    this.terminal = terminal;
    this.render = render;
  }

  start(startedAt: number = Date.now()): void {
    if (!this.terminal.isTTY) return;
    this.startedAt = startedAt;
    this.terminal.setOverlay(() => this.erase());
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref();
  }

  /** Lines held back by the collapsed preview, shown next to the elapsed time. */
  setHiddenLines(count: number): void {
    this.hiddenLines = count;
  }

  /** Stops and erases; call when the cell ends or before the REPL reads from the user. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
    this.terminal.setOverlay(undefined);
  }

  /** Pauses drawing (an input() prompt is on screen); `start` resumes with the original start time. */
  pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
  }

  resume(): void {
    if (!this.terminal.isTTY || this.timer !== undefined) return;
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref();
  }

  private draw(): void {
    const elapsed = Date.now() - this.startedAt;
    if (elapsed < SHOW_AFTER_MS && this.hiddenLines === 0) return;
    if (!this.terminal.isAtLineStart) return;
    let text = formatSpinner(this.tick++, elapsed, this.render);
    if (this.hiddenLines > 0) text += ` · ${pluralize(this.hiddenLines, "line")} held back`;
    this.terminal.stream.write(`\r\x1b[2K${text}`);
    this.isVisible = true;
  }

  private erase(): void {
    if (!this.isVisible) return;
    this.terminal.stream.write("\r\x1b[2K");
    this.isVisible = false;
  }
}
