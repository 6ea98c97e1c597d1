// One retained JavaScript context: a worker thread holding a vm context, killable without touching the host.
import { statSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { KernelOutput } from "../contracts/outputs.js";
import { STATUS_MIME } from "../contracts/outputs.js";
import { EvalkitError } from "../errors.js";
import { CellColumnMap, type RunningCell, recordOutput } from "./js-cell-record.js";
import { type JsKernelOptions, validateOptions } from "./js-kernel-options.js";
import { rewriteJsCell } from "./js-rewrite.js";
import { buildJsWorkerSource, type WorkerMessage } from "./js-worker-source.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "./kernel.js";

export type { JsKernelOptions } from "./js-kernel-options.js";

/** Unconsumed stream characters the worker may queue before its writes block (backpressure). */
const BACKLOG_LIMIT_CHARS = 4 * 1024 * 1024;
/** Output produced between cells (timers, late rejections) waits for the next cell up to this many characters. */
const STRAY_LIMIT_CHARS = 256 * 1024;
const STDERR_TAIL_CHARS = 8192;
/** Shared bytes mirroring the worker's not-yet-posted stream text (the worker flushes at 32 KiB). */
const TAIL_CAPACITY = 32 * 1024;

/** [0] unconsumed stream chars, [1] unflushed tail bytes, [2] tail stream (1 stdout, 2 stderr), then the tail. */
function createSharedState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(16 + TAIL_CAPACITY), 0, 4);
}
let kernelSerial = 0;

/** A retained JavaScript kernel (docs/javascript.md). A killed worker is replaced by a fresh one on the next `execute`. */
export class JsKernel implements Kernel {
  readonly language = "js" as const;
  private readonly options: JsKernelOptions;
  private readonly name = `js${++kernelSerial}`;
  private worker: Worker | undefined;
  private shared = createSharedState();
  private starting: Promise<void> | undefined;
  private running: RunningCell | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stray: KernelOutput[] = [];
  private strayChars = 0;
  private stderrTail = "";
  private executionCount = 0;
  private cellSerial = 0;
  private isClosed = false;
  private isKilling = false;
  private exitListeners = new Set<(exit: KernelExit) => void>();
  private lastExit: KernelExit | undefined;
  private readonly columns = new CellColumnMap();

  constructor(options: JsKernelOptions = {}) {
    this.options = validateOptions(options);
  }

  get isAlive(): boolean {
    return this.worker !== undefined && !this.isClosed && !this.isKilling;
  }

  /** The worker's working directory as cells see it. */
  get cwd(): string {
    return path.resolve(this.options.cwd ?? process.cwd());
  }

  /** Start the worker and wait for it to be ready (execute does this on demand). */
  start(): Promise<void> {
    if (this.isClosed)
      return Promise.reject(new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down"));
    if (this.worker && !this.isKilling) return this.starting ?? Promise.resolve();
    this.starting = this.spawnWorker();
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

  /** Cancel the running cell's await chain; a cell stuck in synchronous code is killed after `interruptGraceMs`. */
  interrupt(): void {
    const cell = this.running;
    if (!cell || !this.worker) return;
    cell.calls.abort(new EvalkitError("ABORTED", "the cell was interrupted"));
    this.worker.postMessage({ t: "interrupt", id: cell.id });
    cell.escalation ??= setTimeout(() => {
      if (this.running === cell) void this.killWorker();
    }, this.options.interruptGraceMs ?? 500);
  }

  /** A fresh context: terminate the worker (all state goes) and start a new one. */
  async restart(): Promise<void> {
    await this.killWorker();
    await this.start();
  }

  async shutdown(): Promise<KernelExit | undefined> {
    this.isClosed = true;
    if (!this.worker) return this.lastExit;
    await this.killWorker();
    return this.lastExit;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private async spawnWorker(): Promise<void> {
    this.shared = createSharedState();
    this.stderrTail = "";
    const worker = new Worker(buildJsWorkerSource(), {
      eval: true,
      name: `evalkit-${this.name}`,
      workerData: {
        cwd: this.cwd,
        shared: this.shared.buffer,
        tailCapacity: TAIL_CAPACITY,
        backlogLimit: BACKLOG_LIMIT_CHARS,
        statusMime: STATUS_MIME,
      },
      env: this.options.env ?? { ...process.env },
      stdout: true,
      stderr: true,
      ...(this.options.resourceLimits ? { resourceLimits: this.options.resourceLimits } : {}),
    });
    this.worker = worker;
    this.isKilling = false;
    worker.stdout.on("data", (chunk: Buffer) =>
      this.routeOutput({ type: "stream", name: "stdout", text: String(chunk) }),
    );
    worker.stderr.on("data", (chunk: Buffer) => {
      const text = String(chunk);
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      this.routeOutput({ type: "stream", name: "stderr", text });
    });
    worker.on("error", (err) => {
      this.stderrTail = (this.stderrTail + `${err.name}: ${err.message}\n`).slice(-STDERR_TAIL_CHARS);
    });
    worker.on("exit", (exitCode) => this.onWorkerExit(worker, exitCode));
    const timeoutMs = this.options.startTimeoutMs ?? 10_000;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ready message within ${timeoutMs} ms`)),
          timeoutMs,
        );
        worker.once("exit", (exitCode) => {
          clearTimeout(timer);
          reject(new Error(`worker exited with code ${exitCode} during start-up`));
        });
        worker.on("message", (message: WorkerMessage) => {
          if (message.t === "ready") {
            clearTimeout(timer);
            resolve();
          } else this.onMessage(message);
        });
      });
    } catch (err) {
      await this.killWorker();
      const detail = this.stderrTail.trim();
      throw new EvalkitError(
        "KERNEL_START_FAILED",
        `the JS worker did not start: ${(err as Error).message}${detail ? `\n${detail}` : ""}`,
        { stderrTail: this.stderrTail },
        err,
      );
    }
    worker.unref();
  }

  private async runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (this.isClosed) throw new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down");
    if (options.signal?.aborted) {
      return { status: "error", cancelled: true, executionCount: null, outputs: [], durationMs: 0 };
    }
    if (options.cwd !== undefined) this.checkCwd(options.cwd);
    await this.start();
    const worker = this.worker;
    if (!worker) throw new EvalkitError("KERNEL_DIED", "the JS worker is not running", { stateLost: true });
    const isCounted = !options.silent && options.storeHistory !== false;
    const executionCount = isCounted ? ++this.executionCount : null;
    const id = `${this.name}-${++this.cellSerial}`;
    const rewritten = rewriteJsCell(code);
    const filename = executionCount === null ? "<cell>" : `<cell ${executionCount}>`;
    this.columns.remember(filename, rewritten.columnShifts);
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const cell: RunningCell = {
        id,
        options,
        outputs: [],
        retainedStreamBytes: 0,
        outputsTruncated: false,
        executionCount,
        startedAt: performance.now(),
        calls: new AbortController(),
        resolve,
        reject,
      };
      const onAbort = () => this.interrupt();
      const finish = () => {
        clearTimeout(cell.escalation);
        options.signal?.removeEventListener("abort", onAbort);
        cell.calls.abort(new EvalkitError("ABORTED", "the cell ended"));
        worker.unref();
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
      for (const output of this.stray.splice(0)) this.addOutput(cell, output);
      this.strayChars = 0;
      worker.ref();
      worker.postMessage({
        t: "exec",
        id,
        code: rewritten.code,
        isAsync: rewritten.isAsync,
        hasResult: rewritten.hasResult,
        lineOffset: rewritten.lineOffset,
        filename,
        silent: options.silent === true,
        ...(options.cwd !== undefined ? { cwd: path.resolve(this.cwd, options.cwd) } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      // The signal may have fired while the worker was starting: the cell still gets its chance to be cancelled.
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

  private onMessage(message: WorkerMessage): void {
    switch (message.t) {
      case "stream":
        Atomics.sub(this.shared, 0, message.text.length);
        Atomics.notify(this.shared, 0);
        this.routeOutput({ type: "stream", name: message.name, text: message.text });
        return;
      case "output":
        this.routeOutput(message.output);
        return;
      case "call":
        void this.answerCall(message.callId, message.method, message.params);
        return;
      case "done": {
        const cell = this.running;
        if (!cell || cell.id !== message.id) return;
        this.running = undefined;
        cell.resolve({
          status: message.status,
          cancelled: message.cancelled,
          executionCount: cell.executionCount,
          outputs: cell.outputs,
          ...(cell.error ? { error: cell.error } : {}),
          durationMs: performance.now() - cell.startedAt,
          ...(cell.outputsTruncated ? { outputsTruncated: true } : {}),
        });
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
    const size = output.type === "stream" ? output.text.length : 1024;
    if (this.strayChars + size > STRAY_LIMIT_CHARS) return;
    this.strayChars += size;
    this.stray.push(output);
  }

  private addOutput(cell: RunningCell, original: KernelOutput): void {
    const output =
      original.type === "error" ? { ...original, traceback: this.columns.map(original.traceback) } : original;
    recordOutput(cell, output, this.options.retainStreamBytes ?? 1024 * 1024);
  }

  private async answerCall(callId: string, method: string, params: Record<string, unknown>): Promise<void> {
    const cell = this.running;
    let reply: Record<string, unknown>;
    try {
      if (!cell)
        throw new EvalkitError("INVALID_INPUT", `${method}() can only be called while a cell is running`);
      if (!cell.options.onCall)
        throw new EvalkitError("INVALID_INPUT", `no host handler registered for ${method}()`);
      const value = await cell.options.onCall({ method, params, signal: cell.calls.signal });
      reply = { t: "reply", callId, ok: true, value: value === undefined ? null : value };
    } catch (err) {
      const name = err instanceof Error ? err.name : "Error";
      const message = err instanceof Error ? err.message : String(err);
      reply = { t: "reply", callId, ok: false, error: { name, message } };
    }
    try {
      this.worker?.postMessage(reply);
    } catch (err) {
      this.worker?.postMessage({
        t: "reply",
        callId,
        ok: false,
        error: { name: "DataCloneError", message: String(err) },
      });
    }
  }

  private async killWorker(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.isKilling = true;
    await new Promise<void>((resolve) => {
      worker.once("exit", () => resolve());
      void worker.terminate();
    });
  }

  private onWorkerExit(worker: Worker, exitCode: number): void {
    if (this.worker !== worker) return;
    const requested = this.isKilling || this.isClosed;
    this.worker = undefined;
    this.starting = undefined;
    this.isKilling = false;
    this.recoverUnflushedStream();
    const exit: KernelExit = { exitCode, signal: null, requested, stderrTail: this.stderrTail };
    this.lastExit = exit;
    const cell = this.running;
    this.running = undefined;
    if (cell) cell.reject(this.deathError(exit, this.isClosed));
    for (const listener of this.exitListeners) listener(exit);
  }

  /** A worker killed in a busy loop never flushed its last lines; they are still in shared memory. */
  private recoverUnflushedStream(): void {
    const bytes = Atomics.load(this.shared, 1);
    if (bytes > 0 && bytes <= TAIL_CAPACITY) {
      const text = Buffer.from(this.shared.buffer, 16, bytes).toString("utf8");
      this.routeOutput({
        type: "stream",
        name: Atomics.load(this.shared, 2) === 2 ? "stderr" : "stdout",
        text,
      });
    }
    Atomics.store(this.shared, 1, 0);
    Atomics.store(this.shared, 0, 0);
    Atomics.notify(this.shared, 0);
  }

  private deathError(exit: KernelExit, isShutdown: boolean): EvalkitError {
    if (isShutdown)
      return new EvalkitError("KERNEL_CLOSED", "the JS kernel was shut down while the cell ran");
    const details = {
      killed: exit.requested,
      stateLost: true,
      exitCode: exit.exitCode,
      stderrTail: exit.stderrTail,
    };
    const message = exit.requested
      ? `the cell did not stop within ${this.options.interruptGraceMs ?? 500} ms of the interrupt; JS worker killed, state lost`
      : `the JS worker exited with code ${exit.exitCode} while the cell ran; state lost`;
    return new EvalkitError("KERNEL_DIED", message, details);
  }
}
