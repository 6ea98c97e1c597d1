// The one kernel client: one queue, one running cell, one interrupt path, one escalation timer and one exit
// classification for every runtime; what differs between runtimes comes from their RuntimeDescription.
import type { CellLanguage } from "../../contracts/cell-result.js";
import { EvalkitError } from "../../errors.js";
import type {
  CompletenessReply,
  CompletionReply,
  ExecuteOptions,
  ExecuteOutcome,
  Kernel,
  KernelExit,
} from "../kernel.js";
import { CellQueue } from "./cell-queue.js";
import { describeCellDeath, describeNotRunning, describeShutdownDuringCell } from "./exit-classification.js";
import { type FrameRoute, routeFrame } from "./frame-routing.js";
import { ReplyRequests } from "./reply-requests.js";
import { type CellHost, RunningCell } from "./running-cell.js";
import type { RuntimeConnection, RuntimeDescription } from "./runtime-description.js";
import { RuntimeSlot } from "./runtime-slot.js";
import { StrayOutput } from "./stray-output.js";

let kernelSerial = 0;

/** How long a completion request waits for a runner busy in a synchronous loop. */
const COMPLETE_TIMEOUT_MS = 2000;

/** A retained kernel over a runtime description (docs/runtimes.md). */
export class KernelClient implements Kernel {
  readonly language: CellLanguage;
  private readonly slot: RuntimeSlot;
  private running: RunningCell | undefined;
  /** The cell between execute() and its frame (the kernel may be starting for it): an interrupt cancels it. */
  private cellOnItsWay: { isInterrupted: boolean } | undefined;
  private readonly cells = new CellQueue();
  private readonly stray: StrayOutput | undefined;
  private readonly replies: ReplyRequests;
  private isClosed = false;
  private hostCount = 0;
  private serial = 0;
  private readonly name: string;
  /** What every running cell needs from the client (made once: a warm cell makes none). */
  private readonly cellHost: CellHost;
  /** What frame routing needs from the client (frame-routing.ts). */
  private readonly frameRoute: FrameRoute;

  constructor(
    protected readonly runtime: RuntimeDescription,
    /** The kernel's own grace after an interrupt (a cell's `interruptGraceMs` wins). */
    private readonly interruptGraceMs = runtime.interruptGraceMs,
  ) {
    this.language = runtime.language;
    this.name = `${runtime.language}${++kernelSerial}`;
    this.replies = new ReplyRequests(this.name);
    this.slot = new RuntimeSlot(runtime, {
      onFrame: (frame, isPlain) => routeFrame(frame, isPlain, this.running, this.frameRoute),
      onProtocolError: (err) => this.settleRunning(err),
      onExit: (exit) => this.onConnectionExit(exit),
    });
    if (runtime.keepsStrayOutput) this.stray = new StrayOutput();
    this.cellHost = {
      send: (frame) => this.send(frame),
      mapTraceback: runtime.mapTraceback?.bind(runtime),
    };
    const { replies, stray, cellHost } = this;
    this.frameRoute = {
      runtime,
      replies,
      stray,
      cellHost,
      endCell: (outcome) => this.settleRunning(outcome),
    };
    if (runtime.hasIsComplete) this.isComplete = (code) => this.askIsComplete(code);
  }

  /** The current process's connection (undefined before the first start). */
  protected get connection(): RuntimeConnection | undefined {
    return this.slot.connection;
  }

  get isAlive(): boolean {
    return (
      this.connection?.isAlive === true && !this.isClosed && this.runtime.isInterpreterAlive?.() !== false
    );
  }

  /** The id of the process the host started: the process-group id of everything the kernel started. */
  get pid(): number | undefined {
    return this.connection?.pid;
  }

  /** Starts the runtime and waits for its `ready` (a kernel that restarts on execute does this on demand). */
  start(): Promise<void> {
    if (this.isClosed) return Promise.reject(this.closedError());
    const connection = this.connection;
    if (connection?.isAlive) return this.slot.starting ?? Promise.resolve();
    if (connection !== undefined && !this.runtime.restartsOnExecute)
      return Promise.reject(new EvalkitError("KERNEL_START_FAILED", "kernel already started"));
    return this.slot.start();
  }

  /** Runs one cell. Cells queue: a second call waits for the first. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (typeof code !== "string")
      return Promise.reject(new EvalkitError("INVALID_INPUT", "code must be a string", { field: "code" }));
    return this.cells.add(() => this.runCell(code, options));
  }

  /**
   * Asks the running cell to stop (a signal and/or an `interrupt` frame, as the runtime says); kills the kernel
   * if the cell has not ended after the kernel's grace. The kernel keeps its state when the cell stops.
   */
  interrupt(): void {
    this.interruptCell(this.interruptGraceMs);
  }

  /**
   * Tab completion at `cursor` from the live state; no user code runs. Resolves to no matches when the kernel is
   * gone, or after `timeoutMs` when a cell holds the runner's thread.
   */
  complete(code: string, cursor = code.length, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<CompletionReply> {
    const connection = this.connection;
    if (!this.isAlive || connection === undefined) return Promise.resolve({ start: cursor, matches: [] });
    return this.replies.complete(connection, code, cursor, timeoutMs, () => this.running === undefined);
  }

  /** Is `code` a whole statement? Present only when the runtime answers `is_complete`. */
  isComplete?(code: string): Promise<CompletenessReply>;

  /** Stops the kernel and everything it started (exit request, SIGTERM, SIGKILL); resolves once it is gone. */
  async shutdown(): Promise<KernelExit | undefined> {
    this.isClosed = true;
    const connection = this.connection;
    if (connection === undefined) return undefined;
    return (await connection.stop(true)) ?? this.slot.lastExit;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    return this.slot.onExit(listener);
  }

  /** Ends the process (all state goes); a kernel that restarts on execute then starts afresh. */
  protected async stopProcess(polite: boolean): Promise<void> {
    const connection = this.connection;
    if (connection === undefined || connection.exit !== undefined) return;
    await connection.stop(polite);
  }

  /** The live interpreter died while its process lives on (Python checkpoints): the cell fails with `err`. */
  protected loseInterpreter(err: EvalkitError): void {
    this.replies.answerAll();
    this.settleRunning(err);
  }

  protected send(frame: Record<string, unknown>): void {
    this.connection?.send(frame);
  }

  /** Runs `run` between cells (checkpoint requests queue with the cells). */
  protected between<T>(run: () => Promise<T>): Promise<T> {
    return this.cells.add(run);
  }

  /** The kernel's `isComplete` when the runtime has it (bound in the constructor of runtimes that do). */
  protected askIsComplete(code: string): Promise<CompletenessReply> {
    const connection = this.connection;
    if (!this.isAlive || connection === undefined)
      return Promise.reject(this.notRunningError("kernel is not running"));
    return this.replies.isComplete(connection, code);
  }

  /** The warm path (a ready kernel) stays synchronous up to the execute frame: no turn of the event loop is lost. */
  private runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (this.isClosed) return Promise.reject(this.closedError());
    // A cell cancelled before it began does not run at all.
    if (options.signal?.aborted) return Promise.resolve(cancelledBeforeStart());
    if (!this.slot.isReady || !this.isAlive) return this.startThenRun(code, options);
    try {
      this.runtime.prepareCell?.(code, options);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.sendCell(code, options);
  }

  /** A cell for a kernel that is starting, or not running: it waits for the start, or fails saying it never ran. */
  private async startThenRun(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    const onItsWay = { isInterrupted: false };
    this.cellOnItsWay = onItsWay;
    let isPrepared = false;
    try {
      if (!this.isAlive) {
        if (!this.runtime.restartsOnExecute || this.runtime.isInterpreterAlive?.() === false)
          // `started: false` tells callers the cell never reached the kernel, so re-running it is safe.
          throw this.notRunningError("kernel is not running", { started: false });
        // The kernel starts for this cell: the cell's own preparation overlaps the boot of its process.
        const starting = this.start();
        await this.slot.launched;
        this.runtime.prepareCell?.(code, options);
        isPrepared = true;
        await starting;
      } else if (this.slot.starting !== undefined) await this.slot.starting;
    } finally {
      this.cellOnItsWay = undefined;
    }
    if (onItsWay.isInterrupted) return cancelledBeforeStart();
    if (!isPrepared) this.runtime.prepareCell?.(code, options);
    return this.sendCell(code, options);
  }

  private sendCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    const connection = this.connection;
    if (connection === undefined || !this.isAlive)
      return Promise.reject(this.notRunningError("kernel is not running", { started: false }));
    const isCounted = !options.silent && options.storeHistory !== false;
    const hostCount = this.runtime.countsCellsOnHost ? (isCounted ? ++this.hostCount : null) : undefined;
    const id = `${this.name}-${++this.serial}`;
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const cell = new RunningCell(
        id,
        options,
        this.runtime.retainStreamBytes,
        this.runtime.echoesNonce,
        hostCount,
        this.cellHost,
        resolve,
        reject,
      );
      this.running = cell;
      this.stray?.moveInto(cell.record);
      connection.setRef(true);
      const { nonce } = cell;
      connection.send(
        this.runtime.executeFrame({ id, code, options, nonce, executionCount: hostCount ?? null }),
      );
      const { signal } = options;
      if (signal !== undefined) {
        const grace = options.interruptGraceMs ?? this.interruptGraceMs;
        cell.listen(signal, () => this.interruptCell(grace));
      }
    });
  }

  /** The one interrupt path: the runtime's signal and/or frame, then the one escalation timer. */
  private interruptCell(graceMs: number): void {
    const cell = this.running;
    const connection = this.connection;
    if (cell === undefined) {
      // The cell is still on its way (the kernel is starting for it): it is cancelled before it runs.
      if (this.cellOnItsWay) this.cellOnItsWay.isInterrupted = true;
      return;
    }
    if (connection === undefined || !this.isAlive) return;
    cell.abortCalls(new EvalkitError("ABORTED", "the cell was interrupted"));
    const mode = this.runtime.interrupt;
    // Before the cell has started, a signal could land between cells (where it is ignored): the frame queues
    // behind the execute frame instead, so it reaches the cell it names. Where no signal crosses, only the frame.
    const isSignalled =
      mode !== "frame" && (cell.isStarted || mode === "signal+frame") && connection.signalInterrupt();
    if (mode !== "signal" || !isSignalled) connection.send({ type: "interrupt", id: cell.id });
    cell.armEscalation(graceMs, () => {
      if (this.running === cell) void this.killCell(cell, graceMs);
    });
  }

  /** The cell ignored its interrupt: kill what runs it (only the interpreter when that keeps checkpoints). */
  private async killCell(cell: RunningCell, graceMs: number): Promise<void> {
    cell.isKilling = true;
    if (await this.runtime.killInterpreter?.()) return;
    const connection = this.connection;
    const exit = await connection?.stop(false);
    // The exit settled the cell already, unless the process was gone before the kill.
    if (this.running === cell && exit !== undefined)
      this.settleRunning(describeCellDeath(this.runtime.name, exit, { killedAfterMs: graceMs }));
  }

  /** The process exited: the running cell learns what that means before the kernel's exit listeners hear of it. */
  private onConnectionExit(exit: KernelExit): void {
    this.replies.answerAll();
    const cell = this.running;
    if (cell === undefined) return;
    const { name } = this.runtime;
    const how = cell.isKilling ? { killedAfterMs: cell.killGraceMs } : {};
    const isShutdown = this.isClosed && exit.requested;
    this.settleRunning(
      isShutdown ? describeShutdownDuringCell(name, exit) : describeCellDeath(name, exit, how),
    );
  }

  private settleRunning(outcome: ExecuteOutcome | Error): void {
    const cell = this.running;
    if (cell === undefined) return;
    this.running = undefined;
    this.connection?.setRef(false);
    cell.settle(outcome);
  }

  private notRunningError(message: string, extra: Record<string, unknown> = {}): EvalkitError {
    if (this.isClosed) return this.closedError();
    return describeNotRunning(this.runtime.name, message, this.slot.lastExit ?? this.connection?.exit, extra);
  }

  private closedError(): EvalkitError {
    return new EvalkitError("KERNEL_CLOSED", `the ${this.runtime.name} kernel was shut down`);
  }
}

function cancelledBeforeStart(): ExecuteOutcome {
  return { status: "error", cancelled: true, executionCount: null, outputs: [], durationMs: 0 };
}
