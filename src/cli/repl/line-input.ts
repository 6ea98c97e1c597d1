// Line input for the REPL: one readline interface for the whole session (history, typeahead, Ctrl-C, Ctrl-D).
import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";
import type { TerminalOutput } from "./terminal.js";

/** What one read produced. */
export type ReadResult = { kind: "line"; text: string } | { kind: "interrupt" } | { kind: "eof" };

export interface ReadLineOptions {
  /** Text placed on the line for the user to edit (auto-indent). Skipped when the user already typed ahead. */
  prefill?: string;
  /** Keep the line in the history (default true; false for input() answers). */
  isHistory?: boolean;
  /** Do not echo what is typed (getpass). */
  isSecret?: boolean;
}

export interface LineInputOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  terminal: TerminalOutput;
  /** Newest first. */
  history: string[];
  historySize: number;
  /** The history changed (newest first): persist it. */
  onHistory: (history: string[]) => void;
  /** Ctrl-C while no read is pending (a cell is running). */
  onInterrupt: () => void;
  /** Tab: the completions for the line up to the cursor, and where they start in it. */
  complete?: (line: string) => Promise<{ start: number; matches: string[] }>;
}

/** readline members this module relies on beyond the typed public API. */
interface ReadlineInternals {
  historySize: number;
}

/** Forwards readline's drawing to the terminal unless muted (typeahead while a cell runs, secret input). */
class MutableOutput extends Writable {
  isMuted = false;
  readonly isTTY: boolean;
  private readonly target: LineInputOptions["output"];

  constructor(target: LineInputOptions["output"]) {
    super({ decodeStrings: false });
    this.target = target;
    this.isTTY = target.isTTY === true;
    target.on("resize", () => this.emit("resize"));
  }

  get columns(): number | undefined {
    return this.target.columns;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.isMuted) this.target.write(chunk as string);
    callback();
  }
}

interface PendingRead {
  resolve: (result: ReadResult) => void;
  prompt: string;
  options: ReadLineOptions;
}

/**
 * Lines arrive from readline at any time and queue: typeahead during a cell and pasted blocks are kept in
 * order. While no read is pending, readline's echo is muted so typing cannot scribble over cell output; a
 * queued line that was typed unseen is echoed after its prompt when it is read.
 */
export class LineInput {
  private rl: Interface;
  private readonly out: MutableOutput;
  private readonly options: LineInputOptions;
  private readonly queue: { text: string; isEchoed: boolean }[] = [];
  private pending: PendingRead | undefined;
  private isClosed = false;
  private isClosing = false;

  constructor(options: LineInputOptions) {
    this.options = options;
    this.out = new MutableOutput(options.output);
    this.out.isMuted = true;
    this.rl = this.open(options.history);
  }

  private open(history: string[]): Interface {
    const { options } = this;
    const isTerminal = options.input.isTTY === true && options.output.isTTY === true;
    const rl = createInterface({
      input: options.input,
      output: this.out,
      terminal: isTerminal,
      history: [...history],
      historySize: options.historySize,
      removeHistoryDuplicates: true,
      tabSize: 4,
      prompt: "",
      ...(options.complete ? { completer: this.completer(options.complete) } : {}),
    });
    rl.on("line", (line) => this.onLine(line));
    rl.on("SIGINT", () => this.onSigint());
    rl.on("close", () => this.onClose(rl));
    rl.on("history", (entries: string[]) => {
      if ((rl as unknown as ReadlineInternals).historySize > 0) options.onHistory(entries);
    });
    return rl;
  }

  /** readline's completer: Tab in leading whitespace indents, elsewhere the kernel completes. */
  private completer(complete: NonNullable<LineInputOptions["complete"]>) {
    return (line: string, callback: (err: null, result: [string[], string]) => void): void => {
      if (line.trim() === "") {
        callback(null, [["    "], ""]);
        return;
      }
      complete(line).then(
        ({ start, matches }) =>
          callback(null, [matches, line.slice(Math.max(0, Math.min(start, line.length)))]),
        () => callback(null, [[], line]),
      );
    };
  }

  /** True once the input ended (Ctrl-D on an empty line, or stdin closed) and every queued line was read. */
  get isEnded(): boolean {
    return this.isClosed && this.queue.length === 0;
  }

  /** Shows `prompt` and resolves with the next line, an interrupt (Ctrl-C) or the end of input. */
  readLine(prompt: string, options: ReadLineOptions = {}): Promise<ReadResult> {
    const queued = this.queue.shift();
    if (queued !== undefined) {
      if (!queued.isEchoed) this.options.terminal.write(`${prompt}${options.isSecret ? "" : queued.text}\n`);
      return Promise.resolve({ kind: "line", text: queued.text });
    }
    if (this.isClosed) return Promise.resolve({ kind: "eof" });
    return new Promise((resolve) => {
      this.pending = { resolve, prompt, options };
      const internals = this.rl as unknown as ReadlineInternals;
      if (options.isHistory === false) internals.historySize = 0;
      if (options.isSecret) {
        this.options.terminal.write(prompt);
        this.rl.setPrompt("");
        this.out.isMuted = true;
        this.rl.prompt(true);
        return;
      }
      this.out.isMuted = false;
      this.rl.setPrompt(prompt);
      this.rl.prompt(true);
      if (options.prefill && this.rl.line === "") this.rl.write(options.prefill);
    });
  }

  /** Stop reading: restores the terminal. */
  close(): void {
    if (this.isClosed) return;
    this.isClosing = true;
    this.out.isMuted = true;
    this.rl.close();
  }

  private settle(result: ReadResult): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    (this.rl as unknown as ReadlineInternals).historySize = this.options.historySize;
    if (pending.options.isSecret && result.kind === "line") this.options.output.write("\n");
    this.out.isMuted = true;
    this.options.terminal.markLineStart();
    pending.resolve(result);
  }

  private onLine(line: string): void {
    if (this.pending) {
      this.settle({ kind: "line", text: line });
      return;
    }
    this.queue.push({ text: line, isEchoed: !this.out.isMuted });
  }

  private onSigint(): void {
    if (!this.pending) {
      this.options.onInterrupt();
      return;
    }
    // Ctrl-C at a prompt drops what was typed, as in IPython and bash.
    this.rl.write(null, { ctrl: true, name: "e" });
    if (!this.out.isMuted) this.options.output.write("^C\n");
    else this.options.output.write("\n");
    this.out.isMuted = true;
    this.rl.write(null, { ctrl: true, name: "u" });
    this.queue.length = 0;
    this.settle({ kind: "interrupt" });
  }

  private onClose(rl: Interface): void {
    const pending = this.pending;
    const isStreamOpen = !(this.options.input as { readableEnded?: boolean }).readableEnded;
    if (pending?.options.isHistory === false && !this.isClosing && isStreamOpen) {
      // Ctrl-D at an input() prompt is EOFError for the cell, not the end of the session: read on with a
      // new interface (readline cannot be reopened).
      this.rl = this.open((rl as unknown as { history: string[] }).history ?? []);
      this.options.output.write("\n");
      this.settle({ kind: "eof" });
      return;
    }
    this.isClosed = true;
    if (pending) {
      if (!this.isClosing) this.options.output.write("\n");
      this.settle({ kind: "eof" });
    }
  }

  /** Interrupt the pending read from outside (a process SIGINT with no terminal). */
  interruptPending(): boolean {
    if (!this.pending) return false;
    this.settle({ kind: "interrupt" });
    return true;
  }
}
