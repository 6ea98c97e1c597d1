// One call's lease on its session: holds the session's queue, picks or starts kernels, retries, crash loops.
import type { CellLanguage } from "../contracts/cell-result.js";
import { EvalkitError, isEvalkitError } from "../errors.js";
import type { Kernel } from "../kernel/kernel.js";
import { describeWeakMemoryLimit } from "../runtime/sandbox-layers.js";
import type { HostBridge } from "./bridge-handlers.js";
import { cancelledByDispose, cancelledWhileQueued } from "./cell-outcome.js";
import { runCell } from "./cell-runner.js";
import { type CellTimeLimits, resolveCellTiming } from "./cell-timing.js";
import {
  type CheckpointBook,
  type CheckpointOptions,
  checkpointBookOf,
  recoverInterpreter,
  takeUndoPoint,
} from "./checkpoint-book.js";
import type { ConcurrencyLimiter } from "./concurrency-limiter.js";
import type { KernelPool, PoolEntry } from "./kernel-pool.js";
import { linkSignals } from "./linked-signal.js";
import { makeKernelKey } from "./session-keys.js";
import type {
  KernelMode,
  KernelSpec,
  ResolvedCellRequest,
  SessionCellOutcome,
  SessionCellRequest,
} from "./session-types.js";
import { validateCellRequest } from "./session-validation.js";

/** What a call borrows from its manager. */
export interface SessionCallContext {
  mode: KernelMode;
  sessionId: string;
  /** Real path. */
  cwd: string;
  /** Identity of the session's queue (session id + cwd). */
  group: string;
  pool: KernelPool;
  /** The FIFO queue of this session (session id + cwd); a call holds it from its first cell to `close()`. */
  queue: ConcurrencyLimiter;
  /** Called once when the call closes (the manager drops unused queues). */
  onClose: () => void;
  bridge: HostBridge;
  disposeSignal: AbortSignal;
  callSignal: AbortSignal | undefined;
  onInputRequest: ((prompt: string, password: boolean) => Promise<string>) | undefined;
  /** What a library caller's `timeoutSec` is resolved against (the tool resolves its own: `runResolved`). */
  timeLimits: CellTimeLimits;
  crashLoopThreshold: number;
  describeSpec: (language: CellLanguage) => Promise<KernelSpec>;
  /** What describeSpec would give, when known without waiting (a warm cell); else undefined. */
  describeSpecNow?: (language: CellLanguage) => KernelSpec | undefined;
  createKernel: (spec: KernelSpec) => Kernel;
  /** Per-call kernels register here so `dispose()` can reach them. */
  trackOwnKernel: (kernel: Kernel) => () => void;
  /** Checkpoint settings (docs/checkpoints.md); undefined: kernels start without checkpoints. */
  checkpoints?: CheckpointOptions | undefined;
  /** Sandboxed: CWD_INVALID when the cwd was swapped or moved since the session started (cwd-pin.ts). */
  checkCwd?: () => void;
}

interface Lease {
  kernel: Kernel;
  entry: PoolEntry | undefined;
}

/**
 * A sequence of cells run back to back. In session mode no other call on the same session runs between
 * them; in per-call mode its kernels are created on first use and shut down by `close()`.
 * Always `close()` a call (in `finally`), or the session's queue stays blocked.
 */
export class SessionCall {
  private releaseQueue: (() => void) | undefined;
  // At most one of each per language, so plain slots instead of Maps (a call is made per warm call).
  private entries: Partial<Record<CellLanguage, PoolEntry>> = {};
  /** Per-call mode only. */
  private ownKernels: Map<CellLanguage, { kernel: Kernel; untrack: () => void }> | undefined;
  /** Made on the first start failure. */
  private failures: Map<CellLanguage, number> | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private callSignals: AbortSignal[] | undefined;
  private isClosed = false;
  /** The automatic undo checkpoint of this call was taken (or was not due). */
  private isUndoPointTaken = false;
  /** Whether this call already said that its sandbox's memory limit is an rlimit only (once per call). */
  private hasLimitNotice = false;

  constructor(private readonly context: SessionCallContext) {}

  /** Runs one cell; cells of one call run in the order `run` was called. */
  run(request: SessionCellRequest): Promise<SessionCellOutcome> {
    try {
      validateCellRequest(request);
    } catch (err) {
      return Promise.reject(err);
    }
    // The library's entry point: the cell's time is resolved here, once (the tool resolves it at its own).
    const { timeoutSec, ...rest } = request;
    return this.runResolved({ ...rest, timing: resolveCellTiming(timeoutSec, this.context.timeLimits) });
  }

  /**
   * Runs a cell that an entry point has validated and timed already (the eval tool): nothing is checked or
   * clamped again. Library callers use `run`.
   */
  runResolved(request: ResolvedCellRequest): Promise<SessionCellOutcome> {
    if (this.isClosed)
      return Promise.reject(new EvalkitError("KERNEL_CLOSED", "this session call is closed"));
    const result = this.tail.then(() => this.runNow(request));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Starts the session's kernel for `language` if it has none, without running a cell (session mode; a per-call
   * kernel would only be shut down at close, so there it does nothing). Resolves once the kernel is up; a kernel
   * that fails to start rejects, and the next cell tries again as usual.
   */
  warm(language: CellLanguage): Promise<void> {
    if (this.isClosed)
      return Promise.reject(new EvalkitError("KERNEL_CLOSED", "this session call is closed"));
    if (this.context.mode !== "session") return Promise.resolve();
    const result = this.tail.then(async () => {
      const { context } = this;
      if (context.disposeSignal.aborted)
        throw new EvalkitError("DISPOSED", "the session manager was disposed");
      this.releaseQueue ??= context.queue.tryAcquire();
      if (!this.releaseQueue) return; // another call holds the session: it starts the kernel itself
      await this.acquireKernel(language, false, []);
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Ends the call: frees the session's queue, shuts per-call kernels down. Safe to call twice. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.tail;
    this.releaseQueue?.();
    this.releaseQueue = undefined;
    this.context.onClose();
    const entries = this.entries;
    this.entries = {};
    for (const language in entries) this.context.pool.checkin(entries[language as CellLanguage]!);
    const ownKernels = this.ownKernels;
    if (ownKernels === undefined || ownKernels.size === 0) return; // session mode: the pool keeps them
    const own = [...ownKernels.values()];
    ownKernels.clear();
    await Promise.allSettled(own.map(({ kernel, untrack }) => kernel.shutdown().finally(untrack)));
  }

  private async runNow(request: ResolvedCellRequest): Promise<SessionCellOutcome> {
    const { context } = this;
    if (context.disposeSignal.aborted) throw new EvalkitError("DISPOSED", "the session manager was disposed");
    const language = request.language ?? "py";
    // Most cells have no signal of their own: they share the call's list (runCell only reads it).
    this.callSignals ??= context.callSignal ? [context.callSignal] : [];
    const signals =
      request.signal === undefined
        ? this.callSignals
        : [context.callSignal, request.signal].filter((s): s is AbortSignal => s !== undefined);
    if (!(await this.holdQueue(signals))) {
      return context.disposeSignal.aborted ? cancelledByDispose() : cancelledWhileQueued();
    }

    const notices: string[] = [];
    let shouldReset = request.reset === true;
    for (;;) {
      let lease: Lease;
      try {
        lease = await this.acquireKernel(language, shouldReset, notices);
      } catch (err) {
        // dispose() while the kernel was starting: the cell never ran, like one still in the queue.
        if (isEvalkitError(err, "DISPOSED")) return cancelledByDispose();
        throw err;
      }
      shouldReset = false;
      // Only Python has undo points: its runner forks a parked copy of the interpreter (docs/checkpoints.md).
      if (!this.isUndoPointTaken && language === "py") {
        this.isUndoPointTaken = true;
        await takeUndoPoint(lease.kernel, context.checkpoints, notices);
      }
      const run = await runCell({
        kernel: lease.kernel,
        code: request.code,
        timing: request.timing,
        retainOutputs: request.retainOutputs !== false,
        callerSignals: signals,
        disposeSignal: context.disposeSignal,
        onOutput: request.onOutput,
        bridge: context.bridge,
        onInputRequest: context.onInputRequest,
        watchdogTimer: lease.entry?.watchdogTimer,
        cellAbort: lease.entry?.cellAbort,
        isKernelRetained: context.mode !== "per-call",
      });
      if (run.kind === "not-started") {
        // Nothing of the cell ran, so running it on a fresh kernel cannot repeat a side effect.
        this.loseKernel(language, lease, "previous kernel was gone before the cell started");
        this.countFailure(language, run.error);
        notices.push("kernel was gone before the cell started; the cell ran on a fresh kernel");
        continue;
      }
      this.failures?.set(language, 0);
      const { outcome } = run;
      if (
        run.isKernelLost &&
        (await recoverInterpreter(lease.kernel, context.checkpoints, outcome.notices))
      ) {
        // The kernel lives on: its checkpoints survived the interpreter (docs/checkpoints.md).
      } else if (run.isKernelLost) {
        const reason =
          outcome.status === "killed"
            ? "previous kernel was killed after it ignored an interrupt"
            : `previous kernel died during a cell`;
        this.loseKernel(language, lease, reason);
      }
      if (!this.hasLimitNotice) {
        this.hasLimitNotice = true;
        const spec = lease.entry?.spec ?? (await context.describeSpec(language));
        const weak = spec.sandbox ? describeWeakMemoryLimit(spec.limits) : undefined;
        if (weak !== undefined) notices.push(weak);
      }
      if (notices.length > 0) outcome.notices = [...notices, ...outcome.notices];
      return outcome;
    }
  }

  /** Holds the session's queue for the rest of the call; false when a signal ended the wait. */
  private async holdQueue(signals: AbortSignal[]): Promise<boolean> {
    const { context } = this;
    if (context.mode === "session" && !this.releaseQueue) this.releaseQueue = context.queue.tryAcquire();
    if (context.mode === "session" && !this.releaseQueue) {
      const wait = linkSignals([...signals, context.disposeSignal]);
      try {
        this.releaseQueue = await context.queue.acquire(wait.signal);
      } catch {
        return false;
      } finally {
        wait.unlink();
      }
    }
    return true;
  }

  /**
   * Runs `step` on the checkpoints of the session's Python kernel (started when there is none), in this call's
   * order. Throws CHECKPOINTS_UNSUPPORTED when the kernel cannot take them (docs/checkpoints.md).
   */
  withCheckpoints<T>(step: (book: CheckpointBook, notices: string[]) => Promise<T>): Promise<T> {
    if (this.isClosed)
      return Promise.reject(new EvalkitError("KERNEL_CLOSED", "this session call is closed"));
    const result = this.tail.then(async () => {
      const { context } = this;
      if (context.disposeSignal.aborted)
        throw new EvalkitError("DISPOSED", "the session manager was disposed");
      if (context.checkpoints === undefined) {
        throw new EvalkitError(
          "CHECKPOINTS_UNSUPPORTED",
          "checkpoints are off: create the tool (or session manager) with the `checkpoints` option",
        );
      }
      const signals = context.callSignal ? [context.callSignal] : [];
      if (!(await this.holdQueue(signals))) throw new EvalkitError("ABORTED", "the call was cancelled");
      const notices: string[] = [];
      const lease = await this.acquireKernel("py", false, notices);
      return step(checkpointBookOf(lease.kernel, context.checkpoints), notices);
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** The kernel for `language`, started (with crash-loop protection) when there is none. */
  private async acquireKernel(
    language: CellLanguage,
    shouldReset: boolean,
    notices: string[],
  ): Promise<Lease> {
    const { context } = this;
    if (context.mode === "per-call") {
      this.ownKernels ??= new Map();
      const ownKernels = this.ownKernels;
      const own = ownKernels.get(language);
      if (own?.kernel.isAlive && !shouldReset) return { kernel: own.kernel, entry: undefined };
      if (own) {
        ownKernels.delete(language);
        await own.kernel.shutdown().catch(() => undefined);
        own.untrack();
        if (shouldReset) notices.push("kernel reset: a fresh kernel was started");
      }
      const kernel = await this.startKernel(language, await context.describeSpec(language));
      await this.refuseIfDisposed(kernel);
      ownKernels.set(language, { kernel, untrack: context.trackOwnKernel(kernel) });
      return { kernel, entry: undefined };
    }

    let entry = this.entries[language];
    const spec = context.describeSpecNow?.(language) ?? (await context.describeSpec(language));
    if (!entry) {
      entry = context.pool.checkout(makeKernelKey(context.sessionId, context.cwd, spec), context.group, spec);
      entry.spec = spec;
      this.entries[language] = entry;
    }
    if (shouldReset) {
      await context.pool.discard(entry);
      notices.push(
        `kernel reset: a fresh kernel was started; every call on session "${context.sessionId}" in this ` +
          "directory shares it, so their earlier state is gone too",
      );
    }
    if (
      entry.kernel &&
      !entry.kernel.isAlive &&
      !(await recoverInterpreter(entry.kernel, context.checkpoints, notices))
    ) {
      context.pool.markLost(entry, "previous kernel exited");
    }
    if (!entry.kernel) {
      const restartNotice = entry.restartNotice;
      if (restartNotice) notices.push(restartNotice);
      entry.restartNotice = undefined;
      context.pool.makeRoomFor(entry);
      let kernel: Kernel;
      try {
        kernel = await this.startKernel(language, entry.spec);
      } catch (err) {
        // No cell ran: the first one that does (a server back up, an interpreter installed) still learns why.
        entry.restartNotice ??= restartNotice;
        throw err;
      }
      await this.refuseIfDisposed(kernel);
      context.pool.install(entry, kernel);
    }
    return { kernel: entry.kernel as Kernel, entry };
  }

  /** Starts a kernel; consecutive failures within this call end in KERNEL_CRASH_LOOP instead of a loop. */
  private async startKernel(language: CellLanguage, spec: KernelSpec): Promise<Kernel> {
    for (;;) {
      if (this.context.disposeSignal.aborted) {
        throw new EvalkitError("DISPOSED", "the session manager was disposed");
      }
      this.context.checkCwd?.();
      const kernel = this.context.createKernel(spec);
      const untrack = this.context.trackOwnKernel(kernel);
      try {
        await kernel.start();
        return kernel;
      } catch (err) {
        await kernel.shutdown().catch(() => undefined);
        if (this.context.disposeSignal.aborted) {
          throw new EvalkitError("DISPOSED", "the session manager was disposed", {}, err);
        }
        if (!isKernelFailure(err)) throw err;
        this.countFailure(language, err);
      } finally {
        untrack();
      }
    }
  }

  /** A kernel that finished starting after dispose() began would escape it: stop it here instead. */
  private async refuseIfDisposed(kernel: Kernel): Promise<void> {
    if (!this.context.disposeSignal.aborted) return;
    await kernel.shutdown().catch(() => undefined);
    throw new EvalkitError("DISPOSED", "the session manager was disposed");
  }

  private countFailure(language: CellLanguage, err: unknown): void {
    this.failures ??= new Map();
    const failures = this.failures;
    const count = (failures.get(language) ?? 0) + 1;
    failures.set(language, count);
    if (count < this.context.crashLoopThreshold) return;
    const last = err instanceof Error ? err.message : String(err);
    const details = isEvalkitError(err) ? err.details : {};
    throw new EvalkitError(
      "KERNEL_CRASH_LOOP",
      `the ${language} kernel failed ${count} times in a row within one call; giving up (last failure: ${last})`,
      { ...details, language, failures: count },
      err,
    );
  }

  private loseKernel(language: CellLanguage, lease: Lease, reason: string): void {
    if (lease.entry) {
      if (lease.entry.kernel === lease.kernel) this.context.pool.markLost(lease.entry, reason);
      return;
    }
    const own = this.ownKernels?.get(language);
    if (own?.kernel === lease.kernel) {
      this.ownKernels?.delete(language);
      void lease.kernel
        .shutdown()
        .catch(() => undefined)
        .finally(own.untrack);
    }
  }
}

/** Start failures worth a retry: the process started and died, or never handshook. */
function isKernelFailure(err: unknown): boolean {
  return (
    isEvalkitError(err, "KERNEL_START_FAILED") ||
    isEvalkitError(err, "KERNEL_DIED") ||
    isEvalkitError(err, "KERNEL_CLOSED") ||
    isEvalkitError(err, "PROTOCOL_ERROR")
  );
}
