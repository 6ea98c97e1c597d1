// One retained JavaScript kernel: a child `node` process (js-kernel-process.ts) that keeps one vm context.
import { statSync } from "node:fs";
import path from "node:path";
import type { KernelOutput } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import { outputSize } from "../../output/display-budget.js";
import { CellRecord } from "../cell-record.js";
import { answerHostCall } from "../host-calls.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../kernel.js";
import { decodeRunnerFrame, outputOfDisplayFrame } from "../runner-frames.js";
import { CellColumnMap } from "./cell-columns.js";
import { type JsKernelOptions, memoryLimits, validateOptions } from "./js-kernel-options.js";
import { JsKernelProcess } from "./js-kernel-process.js";
import { buildJsLaunch } from "./js-launch.js";
import { rewriteJsCell } from "./js-rewrite.js";
import type { ChannelItem } from "./ordered-channels.js";
import { subreaperPrefix } from "./subreaper-parent.js";

export type { JsKernelOptions } from "./js-kernel-options.js";

/** Output produced between cells (timers, late rejections) waits for the next cell up to this many characters. */
const STRAY_LIMIT_CHARS = 256 * 1024;
let kernelSerial = 0;

/** Tab completion: replace `code.slice(start, cursor)` with one of `matches`. */
export interface Completion {
  start: number;
  matches: string[];
}

interface RunningCell {
  record: CellRecord;
  executionCount: number | null;
  calls: AbortController;
  escalation?: NodeJS.Timeout;
  resolve: (outcome: ExecuteOutcome) => void;
  reject: (err: Error) => void;
}

/** A retained JavaScript kernel (docs/javascript.md). A dead process is replaced by a fresh one on the next `execute`. */
export class JsKernel implements Kernel {
  readonly language = "js" as const;
  private readonly options: JsKernelOptions;
  private readonly name = `js${++kernelSerial}`;
  private proc: JsKernelProcess | undefined;
  private starting: Promise<void> | undefined;
  private running: RunningCell | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stray: KernelOutput[] = [];
  private strayChars = 0;
  private strayDropped = 0;
  private executionCount = 0;
  private cellSerial = 0;
  private isClosed = false;
  private exitListeners = new Set<(exit: KernelExit) => void>();
  private lastExit: KernelExit | undefined;
  private readonly columns = new CellColumnMap();
  private readonly completers = new Map<string, (reply: Completion) => void>();
  private completeSerial = 0;

  constructor(options: JsKernelOptions = {}) {
    this.options = validateOptions(options);
  }

  get isAlive(): boolean {
    return this.proc !== undefined && !this.proc.hasExited && !this.isClosed;
  }

  /**
   * The id of the process the host started: the subreaper parent where there is one, else node itself; either
   * way the process-group id of everything the kernel started. A cell's `process.pid` is node's.
   */
  get pid(): number | undefined {
    return this.proc?.child.pid;
  }

  /** The kernel's working directory as cells see it. */
  get cwd(): string {
    return path.resolve(this.options.cwd ?? process.cwd());
  }

  /** Start the kernel process and wait for its `ready` frame (execute does this on demand). */
  start(): Promise<void> {
    if (this.isClosed)
      return Promise.reject(new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down"));
    if (this.proc && !this.proc.hasExited) return this.starting ?? Promise.resolve();
    this.starting = this.spawn();
    return this.starting;
  }

  /** Run one cell. Cells queue: a second call waits for the first. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (typeof code !== "string") {
      return Promise.reject(new EvalkitError("INVALID_INPUT", "code must be a string", { field: "code" }));
    }
    const run = this.queue.then(() => this.runCell(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Interrupt the running cell: its await chain, its timers, a synchronous loop at its top; kill after the grace. */
  interrupt(): void {
    const cell = this.running;
    const proc = this.proc;
    if (!cell || !proc) return;
    cell.calls.abort(new EvalkitError("ABORTED", "the cell was interrupted"));
    proc.send({ type: "interrupt", id: cell.record.id });
    proc.signalInterrupt();
    cell.escalation ??= setTimeout(() => {
      if (this.running === cell) void proc.stop(false);
    }, this.options.interruptGraceMs ?? 500);
  }

  /**
   * Tab completion at `cursor` from the live context (names, properties, object keys, file paths); no user
   * code runs. A synchronous loop in a running cell delays the answer: give up after `timeoutMs` with no matches.
   */
  complete(code: string, cursor = code.length, timeoutMs = 2000): Promise<Completion> {
    const proc = this.proc;
    const none = { start: cursor, matches: [] };
    if (!this.isAlive || !proc) return Promise.resolve(none);
    const id = `${this.name}-t${++this.completeSerial}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(none), timeoutMs);
      timer.unref();
      const settle = (reply: Completion) => {
        clearTimeout(timer);
        this.completers.delete(id);
        if (this.running === undefined && this.completers.size === 0) proc.setRef(false);
        resolve(reply);
      };
      this.completers.set(id, settle);
      // An idle kernel does not keep the host alive; a pending answer must, or a script's `await` ends with it.
      proc.setRef(true);
      proc.send({ type: "complete", id, code, cursor });
    });
  }

  /** A fresh context: end the process (all state goes) and start a new one. */
  async restart(): Promise<void> {
    await this.stopProcess(false);
    await this.start();
  }

  async shutdown(): Promise<KernelExit | undefined> {
    this.isClosed = true;
    await this.stopProcess(true);
    return this.lastExit;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private async stopProcess(polite: boolean): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.hasExited) return;
    const gone = new Promise<void>((resolve) => {
      const remove = this.onExit(() => {
        remove();
        resolve();
      });
    });
    await proc.stop(polite);
    await gone;
  }

  private async spawn(): Promise<void> {
    const { maxHeapMb, memoryMb } = memoryLimits(this.options);
    const { launcher, python } = await buildJsLaunch(this.options, this.cwd);
    const proc: JsKernelProcess = new JsKernelProcess({
      node: this.options.node ?? process.execPath,
      cwd: this.cwd,
      env: this.options.env ?? (process.env as Record<string, string>),
      maxHeapMb,
      memoryMb,
      ...(launcher?.length ? { launcher } : {}),
      ...(python !== null ? { parent: subreaperPrefix(python) } : {}),
      ...(this.options.sandbox ? { sandboxed: true } : {}),
      ...(!this.options.sandbox && this.options.launcher?.length ? { isRemote: true } : {}),
      ...(this.options.limits?.cpuSeconds ? { cpuSeconds: this.options.limits.cpuSeconds } : {}),
      onItem: (item) => this.onItem(item),
      onExit: (exit) => this.onProcessExit(proc, exit),
    });
    this.proc = proc;
    const timeoutMs = this.options.startTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        proc.ready,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no ready frame within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      await proc.stop(false);
      const detail = proc.stderr.trim();
      throw new EvalkitError(
        "KERNEL_START_FAILED",
        `the JS kernel did not start: ${(err as Error).message}${detail ? `\n${detail}` : ""}`,
        { stderrTail: proc.stderr },
        err,
      );
    } finally {
      clearTimeout(timer);
    }
    proc.setRef(false);
  }

  private async runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (this.isClosed) throw new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down");
    if (options.signal?.aborted) {
      return { status: "error", cancelled: true, executionCount: null, outputs: [], durationMs: 0 };
    }
    if (options.cwd !== undefined) this.checkCwd(options.cwd);
    await this.start();
    const proc = this.proc;
    if (!proc || proc.hasExited)
      throw new EvalkitError("KERNEL_DIED", "the JS kernel is not running", {
        stateLost: true,
        started: false,
      });
    const isCounted = !options.silent && options.storeHistory !== false;
    const executionCount = isCounted ? ++this.executionCount : null;
    const id = `${this.name}-${++this.cellSerial}`;
    const rewritten = rewriteJsCell(code);
    const filename = executionCount === null ? "<cell>" : `<cell ${executionCount}>`;
    this.columns.remember(filename, rewritten.columnShifts);
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const record = new CellRecord(id, options, this.options.retainStreamBytes);
      const cell: RunningCell = { record, executionCount, calls: new AbortController(), resolve, reject };
      const onAbort = () => this.interrupt();
      const finish = () => {
        clearTimeout(cell.escalation);
        options.signal?.removeEventListener("abort", onAbort);
        cell.calls.abort(new EvalkitError("ABORTED", "the cell ended"));
        proc.setRef(false);
      };
      cell.resolve = (outcome) => {
        finish();
        resolve(outcome);
      };
      cell.reject = (err) => {
        finish();
        reject(err);
      };
      this.running = cell;
      if (this.strayDropped > 0) {
        // Before what was kept: a flood between cells is capped, never silent.
        const dropped = this.strayDropped.toLocaleString("en-US");
        const limit = STRAY_LIMIT_CHARS.toLocaleString("en-US");
        this.addOutput(cell, {
          type: "stream",
          name: "stderr",
          text: `evalkit: ${dropped} characters of output produced between cells were dropped; the first ${limit} are kept below\n`,
        });
      }
      for (const output of this.stray.splice(0)) this.addOutput(cell, output);
      this.strayChars = 0;
      this.strayDropped = 0;
      proc.setRef(true);
      proc.send({
        type: "execute",
        id,
        code: rewritten.code,
        isAsync: rewritten.isAsync,
        hasResult: rewritten.hasResult,
        lineOffset: rewritten.lineOffset,
        filename,
        executionCount,
        ...(options.silent ? { silent: true } : {}),
        ...(options.cwd !== undefined ? { cwd: path.resolve(this.cwd, options.cwd) } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      // The signal may have fired while the kernel was starting: the cell still gets its chance to be cancelled.
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private checkCwd(dir: string): void {
    const target = path.resolve(this.cwd, dir);
    let isDirectory = false;
    try {
      isDirectory = statSync(target).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory)
      throw new EvalkitError("CWD_INVALID", `not a directory: ${target}`, { field: "cwd", cwd: target });
  }

  private onItem(item: ChannelItem): void {
    if (item.kind === "text") {
      this.routeOutput({ type: "stream", name: item.name, text: item.text });
      return;
    }
    let frame: ReturnType<typeof decodeRunnerFrame>;
    try {
      frame = decodeRunnerFrame(JSON.stringify(item.frame));
    } catch {
      return;
    }
    switch (frame.type) {
      case "display":
      case "result":
        this.routeOutput(outputOfDisplayFrame(frame));
        return;
      case "error":
        this.routeOutput({
          type: "error",
          ename: frame.ename,
          evalue: frame.evalue,
          traceback: this.columns.map(frame.traceback),
        });
        return;
      case "call":
        void this.answerCall(frame.callId, frame.method, frame.params);
        return;
      case "complete_reply":
        this.completers.get(frame.id)?.({ start: frame.start, matches: frame.matches });
        return;
      case "done": {
        const cell = this.running;
        if (!cell || cell.record.id !== frame.id) return;
        this.running = undefined;
        const outcome = cell.record.outcome(frame.status, frame.cancelled, cell.executionCount);
        cell.resolve(frame.usage ? { ...outcome, usage: frame.usage } : outcome);
        return;
      }
    }
  }

  private routeOutput(output: KernelOutput): void {
    const cell = this.running;
    if (cell) {
      this.addOutput(cell, output);
      return;
    }
    // Nobody is listening between cells: keep a bounded amount for the next cell, like Python's pending output.
    // Displays count by their data, so a timer that displays large images between cells is bounded too.
    const size = output.type === "stream" ? output.text.length : Math.max(1024, outputSize(output));
    if (this.strayChars + size > STRAY_LIMIT_CHARS) {
      this.strayDropped += size;
      return;
    }
    this.strayChars += size;
    this.stray.push(output);
  }

  private addOutput(cell: RunningCell, output: KernelOutput): void {
    cell.record.add(output);
  }

  private async answerCall(callId: string, method: string, params: Record<string, unknown>): Promise<void> {
    const cell = this.running;
    if (!cell) {
      const message = `${method}() can only be called while a cell is running`;
      this.proc?.send({ type: "reply", callId, ok: false, error: { name: "EvalkitError", message } });
      return;
    }
    this.proc?.send(
      await answerHostCall(cell.record.options, { callId, method, params, signal: cell.calls.signal }),
    );
  }

  private onProcessExit(proc: JsKernelProcess, exit: KernelExit): void {
    if (this.proc !== proc) return;
    this.starting = undefined;
    this.lastExit = exit;
    for (const settle of [...this.completers.values()]) settle({ start: 0, matches: [] });
    const cell = this.running;
    this.running = undefined;
    if (cell) cell.reject(this.deathError(exit));
    for (const listener of [...this.exitListeners]) listener(exit);
  }

  private deathError(exit: KernelExit): EvalkitError {
    if (this.isClosed)
      return new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down while the cell ran");
    const details = {
      killed: exit.requested,
      stateLost: true,
      exitCode: exit.exitCode,
      signal: exit.signal,
      stderrTail: exit.stderrTail,
      ...(exit.cause ? { cause: exit.cause, outOfMemory: exit.outOfMemory === true } : {}),
      exit,
    };
    const how = exit.cause ?? (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`);
    const message = exit.requested
      ? `the cell did not stop within ${this.options.interruptGraceMs ?? 500} ms of the interrupt; JS kernel killed, state lost`
      : `the JS kernel ended (${how}) while the cell ran; state lost`;
    return new EvalkitError("KERNEL_DIED", message, details);
  }
}
