// One retained JavaScript kernel: a child `node` process (js-kernel-process.ts) that keeps one vm context.
import path from "node:path";
import type { KernelOutput } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import { isDirectory } from "../../runtime/find-executable.js";
import { CellQueue } from "../cell-queue.js";
import { CellRecord } from "../cell-record.js";
import { answerHostCall } from "../host-calls.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../kernel.js";
import { decodeRunnerFrameObject, outputOfDisplayFrame } from "../runner-frames.js";
import { CellColumnMap } from "./cell-columns.js";
import { type Completion, JsCompletions } from "./js-completions.js";
import { describeJsDeath } from "./js-exit.js";
import {
  JS_INTERRUPT_GRACE_MS,
  JS_START_TIMEOUT_MS,
  type JsKernelOptions,
  validateOptions,
} from "./js-kernel-options.js";
import { JsKernelProcess } from "./js-kernel-process.js";
import { buildJsLaunch } from "./js-launch.js";
import { type RewrittenCell, rewriteJsCell } from "./js-rewrite.js";
import { JsRunningCell } from "./js-running-cell.js";
import type { ChannelItem } from "./ordered-channels.js";
import { StrayOutput } from "./stray-output.js";

export type { Completion } from "./js-completions.js";
export type { JsKernelOptions } from "./js-kernel-options.js";

let kernelSerial = 0;

/** A retained JavaScript kernel (docs/javascript.md). A dead process is replaced by a fresh one on the next `execute`. */
export class JsKernel implements Kernel {
  readonly language = "js" as const;
  private readonly options: JsKernelOptions;
  private readonly name = `js${++kernelSerial}`;
  private proc: JsKernelProcess | undefined;
  private starting: Promise<void> | undefined;
  /** Settles once the starting kernel's process exists (spawned or failed), before its `ready`. */
  private launched: Promise<void> = Promise.resolve();
  private running: JsRunningCell | undefined;
  /** The cell between execute() and its request (the kernel may be starting for it): an interrupt cancels it. */
  private cellOnItsWay: { isInterrupted: boolean } | undefined;
  private readonly cells = new CellQueue();
  private readonly stray = new StrayOutput();
  private executionCount = 0;
  private cellSerial = 0;
  private isClosed = false;
  private exitListeners = new Set<(exit: KernelExit) => void>();
  private lastExit: KernelExit | undefined;
  private readonly columns = new CellColumnMap();
  private readonly completions = new JsCompletions(this.name);

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
    return this.cells.add(() => this.runCell(code, options));
  }

  /** Interrupt the running cell: its await chain, its timers, a synchronous loop at its top; kill after the grace. */
  interrupt(): void {
    const cell = this.running;
    const proc = this.proc;
    if (!cell) {
      // The cell is still on its way (the kernel is starting for it): it is cancelled before it runs.
      if (this.cellOnItsWay) this.cellOnItsWay.isInterrupted = true;
      return;
    }
    if (!proc) return;
    cell.calls.abort(new EvalkitError("ABORTED", "the cell was interrupted"));
    proc.send({ type: "interrupt", id: cell.record.id });
    proc.signalInterrupt();
    cell.escalation ??= setTimeout(() => {
      if (this.running === cell) void proc.stop(false);
    }, this.options.interruptGraceMs ?? JS_INTERRUPT_GRACE_MS);
  }

  /**
   * Tab completion at `cursor` from the live context (names, properties, object keys, file paths); no user
   * code runs. A synchronous loop in a running cell delays the answer: give up after `timeoutMs` with no matches.
   */
  complete(code: string, cursor = code.length, timeoutMs = 2000): Promise<Completion> {
    const proc = this.proc;
    if (!this.isAlive || !proc) return Promise.resolve({ start: cursor, matches: [] });
    return this.completions.request(proc, code, cursor, timeoutMs, () => this.running === undefined);
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
    const launching = this.launch();
    this.launched = launching.then(
      () => undefined,
      () => undefined,
    );
    const proc = await launching;
    await proc.handshake(this.options.startTimeoutMs ?? JS_START_TIMEOUT_MS);
    proc.setRef(false);
  }

  private async launch(): Promise<JsKernelProcess> {
    const launch = await buildJsLaunch(this.options, this.cwd);
    let proc: JsKernelProcess;
    try {
      proc = new JsKernelProcess({
        ...launch,
        cwd: this.cwd,
        onItem: (item) => this.onItem(item),
        onExit: (exit) => this.onProcessExit(proc, exit),
      });
    } catch (err) {
      launch.cgroup?.remove(); // no process will exit to remove it
      throw err;
    }
    this.proc = proc;
    return proc;
  }

  private async runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (this.isClosed) throw new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down");
    if (options.signal?.aborted) {
      return { status: "error", cancelled: true, executionCount: null, outputs: [], durationMs: 0 };
    }
    if (options.cwd !== undefined) this.checkCwd(options.cwd);
    const onItsWay = { isInterrupted: false };
    this.cellOnItsWay = onItsWay;
    let rewritten: RewrittenCell | undefined;
    if (this.isAlive) await this.start();
    else {
      // A kernel starts for this cell: the rewrite (acorn loads with a process's first JS cell, ~14 ms here) runs
      // while the kernel's process boots, after its spawn, instead of after its ready.
      const starting = this.start();
      await this.launched;
      rewritten = rewriteJsCell(code);
      await starting;
    }
    this.cellOnItsWay = undefined;
    if (onItsWay.isInterrupted) {
      return { status: "error", cancelled: true, executionCount: null, outputs: [], durationMs: 0 };
    }
    const proc = this.proc;
    if (!proc || proc.hasExited)
      throw new EvalkitError("KERNEL_DIED", "the JS kernel is not running", {
        stateLost: true,
        started: false,
      });
    const isCounted = !options.silent && options.storeHistory !== false;
    const executionCount = isCounted ? ++this.executionCount : null;
    const id = `${this.name}-${++this.cellSerial}`;
    rewritten ??= rewriteJsCell(code);
    const filename = executionCount === null ? "<cell>" : `<cell ${executionCount}>`;
    this.columns.remember(filename, rewritten.columnShifts);
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const record = new CellRecord(id, options, this.options.retainStreamBytes);
      const onAbort = () => this.interrupt();
      const cell = new JsRunningCell(record, executionCount, proc, onAbort, resolve, reject);
      this.running = cell;
      this.stray.moveInto(record);
      proc.setRef(true);
      const cwd = options.cwd === undefined ? undefined : path.resolve(this.cwd, options.cwd);
      proc.send(cell.executeFrame(rewritten, filename, cwd));
      // The signal may have fired while the kernel was starting: the cell still gets its chance to be cancelled.
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private checkCwd(dir: string): void {
    const target = path.resolve(this.cwd, dir);
    if (!isDirectory(target))
      throw new EvalkitError("CWD_INVALID", `not a directory: ${target}`, { field: "cwd", cwd: target });
  }

  private onItem(item: ChannelItem): void {
    if (item.kind === "text") {
      this.routeOutput({ type: "stream", name: item.name, text: item.text });
      return;
    }
    let frame: ReturnType<typeof decodeRunnerFrameObject>;
    try {
      frame = decodeRunnerFrameObject(item.frame);
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
        this.completions.answer(frame.id, { start: frame.start, matches: frame.matches });
        return;
      case "done": {
        const cell = this.running;
        if (!cell || cell.record.id !== frame.id) return;
        this.running = undefined;
        cell.resolve(cell.record.outcome(frame.status, frame.cancelled, cell.executionCount, frame.usage));
        return;
      }
    }
  }

  private routeOutput(output: KernelOutput): void {
    const cell = this.running;
    if (cell) cell.record.add(output);
    else this.stray.keep(output);
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
    this.completions.answerAll();
    const cell = this.running;
    this.running = undefined;
    if (cell) cell.reject(this.deathError(exit));
    for (const listener of [...this.exitListeners]) listener(exit);
  }

  private deathError(exit: KernelExit): EvalkitError {
    if (this.isClosed)
      return new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down while the cell ran");
    return describeJsDeath(exit, this.options.interruptGraceMs ?? JS_INTERRUPT_GRACE_MS);
  }
}
