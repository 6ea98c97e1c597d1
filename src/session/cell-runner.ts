// Runs one cell on a started kernel: watchdog, abort on timeout/cancel, outcome classification (the kernel kills).
import type { KernelOutput } from "../contracts/outputs.js";
import { isEvalkitError } from "../errors.js";
import type { BridgeCallHandler, ExecuteOptions, Kernel, KernelExit } from "../kernel/kernel.js";
import type { HostBridge } from "./bridge-handlers.js";
import type { CellAbortSlot } from "./cell-abort.js";
import {
  type AbortCause,
  buildAbortedBeforeStart,
  buildOutcome,
  exitFromError,
  formatGrace,
  RetainedOutputs,
} from "./cell-outcome.js";
import { type CellTiming, DEFAULT_INTERRUPT_GRACE_MS } from "./cell-timing.js";
import { CellWatchdog, describeTimeout, type WatchdogTimer } from "./cell-watchdog.js";
import { describeDeathDuringCell, describeExitCause, trimStderrTail } from "./exit-cause.js";
import { onAbort } from "./linked-signal.js";
import type { SessionCellOutcome } from "./session-types.js";

export interface CellRunOptions {
  kernel: Kernel;
  code: string;
  /** Resolved once at the entry point (cell-timing.ts); used as it is. */
  timing: CellTiming;
  /**
   * Keep the cell's outputs for `outcome.outputs` (library callers). False when the caller keeps every output it
   * gets through `onOutput` (the eval tool's collector): then nobody below keeps a copy.
   */
  retainOutputs: boolean;
  /** Caller / call / cell signals. */
  callerSignals: AbortSignal[];
  /** The manager's dispose signal. */
  disposeSignal: AbortSignal;
  onOutput?: (output: KernelOutput) => void;
  bridge: HostBridge;
  onInputRequest?: (prompt: string, password: boolean) => Promise<string>;
  /** The kernel's reusable timeout timer (session mode), instead of a timer per cell. */
  watchdogTimer?: WatchdogTimer | undefined;
  /** The kernel's reusable abort signal (session mode), instead of an AbortController per cell. */
  cellAbort?: CellAbortSlot | undefined;
  /** False for a per-call kernel, which the call shuts down: its notices must not say it remains running. */
  isKernelRetained?: boolean;
}

/** `not-started`: the kernel was gone before the cell reached it, so running it again is safe. */
export type CellRun =
  | { kind: "finished"; outcome: SessionCellOutcome; isKernelLost: boolean }
  | { kind: "not-started"; error: unknown };

/** Runs the cell; never throws for kernel deaths (they become outcomes), only for host-side bugs. */
export async function runCell(options: CellRunOptions): Promise<CellRun> {
  const { kernel } = options;
  const startedAt = performance.now();
  // The one copy of the cell's outputs, for a caller that reads `outcome.outputs`; bounded by the one budget.
  const outputs = options.retainOutputs ? new RetainedOutputs() : undefined;
  let abortCause: AbortCause | undefined;
  let interruptedAt = 0;
  // Aborting it makes the kernel interrupt the cell and, `timing.interruptGraceMs` later, kill it (the kernel
  // client is the one place that escalates).
  let cellAbort: AbortController | undefined;
  let observedExit: KernelExit | undefined;
  // Bridge handlers' scope, created on the first bridge call: aborted on interrupt and when the cell ends.
  let cellScope: AbortController | undefined;

  // The cell's abort is AbortSignal.any([caller..., dispose, watchdog]) unrolled into listeners: this path
  // runs for every warm cell, and Node 20's AbortSignal.any costs ~0.2 ms and leaks on long-lived sources.
  const abortCell = (cause: AbortCause) => {
    if (abortCause !== undefined) return;
    abortCause = cause;
    cellScope?.abort(
      new DOMException(`the cell was ${cause === "timeout" ? "timed out" : "cancelled"}`, "AbortError"),
    );
    interruptedAt = performance.now();
    cellAbort?.abort();
  };
  const watchdog = new CellWatchdog({
    resolvedTimeoutSec: options.timing.timeoutSec,
    onExpire: () => abortCell("timeout"),
    timer: options.watchdogTimer,
  });
  const detachers: Array<() => void> = [];
  const detachSources = () => {
    for (const detach of detachers) detach();
  };

  if (!kernel.isAlive) {
    watchdog.dispose();
    return { kind: "not-started", error: new Error("the kernel was not running") };
  }
  const preAborted = options.disposeSignal.aborted
    ? "disposed"
    : options.callerSignals.some((signal) => signal.aborted)
      ? "cancelled"
      : undefined;
  if (preAborted) {
    watchdog.dispose();
    return { kind: "finished", outcome: buildAbortedBeforeStart(preAborted, watchdog), isKernelLost: false };
  }
  if (options.callerSignals.length > 0) {
    const onCallerAbort = () => abortCell("cancelled");
    for (const signal of options.callerSignals) detachers.push(onAbort(signal, onCallerAbort));
  }
  detachers.push(onAbort(options.disposeSignal, () => abortCell("disposed")));
  const removeExitListener = kernel.onExit((exit) => {
    observedExit = exit;
  });
  // The bridge handler and its context are made on the cell's first bridge call: most cells make none. Made for
  // every cell, that object literal with a getter kept the cells' closure contexts alive through scavenges (most
  // likely through the hidden class V8 makes for each such literal), so ~21% of a warm call's allocation was
  // promoted and needed a full GC; without it ~0.6% (node --trace-gc-nvp, fake kernel).
  let callHandler: BridgeCallHandler | undefined;
  // Taken past the early returns above, so the `finally` below always gives it back.
  cellAbort = options.cellAbort?.take() ?? new AbortController();
  const onOutput = options.onOutput;
  const executeOptions: ExecuteOptions = {
    onOutput:
      outputs === undefined
        ? onOutput
        : (output) => {
            outputs.add(output);
            onOutput?.(output);
          },
    signal: cellAbort.signal,
    retainOutputs: false,
    onCall: (call) => {
      callHandler ??= options.bridge.createCallHandler({
        get signal(): AbortSignal {
          if (!cellScope) {
            cellScope = new AbortController();
            if (abortCause !== undefined)
              cellScope.abort(new DOMException("the cell was interrupted", "AbortError"));
          }
          return cellScope.signal;
        },
        pauseTimeout: () => watchdog.pause(),
      });
      return callHandler(call);
    },
  };
  // Only a configured grace is passed: otherwise the runtime's own applies (the JS kernel's is 0.5 s, because a
  // synchronous loop after an await can never honour an interrupt).
  const configuredGraceMs = options.timing.interruptGraceMs;
  if (configuredGraceMs !== undefined) executeOptions.interruptGraceMs = configuredGraceMs;
  const onInputRequest = options.onInputRequest;
  if (onInputRequest) {
    // Waiting for a human to type is not the cell's own work.
    executeOptions.onInputRequest = async (prompt, password) => {
      const release = watchdog.pause();
      try {
        return await onInputRequest(prompt, password);
      } finally {
        release();
      }
    };
  }

  try {
    const result = await kernel.execute(options.code, executeOptions);
    const durationMs = performance.now() - startedAt;
    return {
      kind: "finished",
      outcome: buildOutcome(
        result,
        outputs?.items ?? [],
        abortCause,
        watchdog,
        durationMs,
        options.isKernelRetained ?? true,
      ),
      isKernelLost: false,
    };
  } catch (err) {
    // After our own interrupt, a closed kernel is the kill ladder's doing, not a cell that never ran.
    if (abortCause === undefined && isNotStarted(err)) return { kind: "not-started", error: err };
    const isProtocolBroken = isEvalkitError(err, "PROTOCOL_ERROR");
    if (!isEvalkitError(err, "KERNEL_DIED") && !isEvalkitError(err, "KERNEL_CLOSED") && !isProtocolBroken)
      throw err;
    const exit = exitFromError(err) ?? observedExit ?? (await waitForExit(kernel, 1000));
    // The kernel client's kill after the grace: `killed: true`, or (a kernel whose exit handler settles the cell
    // before its escalation can say so) an exit the host requested while the cell was being interrupted.
    const isKilled = err.details.killed === true || (abortCause !== undefined && exit?.requested === true);
    const outcome: SessionCellOutcome = {
      status: "died",
      executionCount: null,
      outputs: outputs?.items ?? [],
      durationMs: performance.now() - startedAt,
      notices: [],
    };
    if (exit) outcome.exit = exit;
    if (abortCause === "disposed") {
      outcome.status = "cancelled";
      outcome.notices.push("eval cell cancelled: the session manager was disposed and its kernels shut down");
    } else if (isProtocolBroken) {
      // The runner's channel carried garbage: nothing it says can be trusted, so the kernel is gone.
      outcome.notices.push(
        `the kernel broke the protocol (${err.message}) and was shut down; state was lost`,
      );
      outcome.error = { ename: "ProtocolError", evalue: err.message, traceback: [] };
    } else if (isKilled && abortCause !== undefined) {
      outcome.status = "killed";
      const what = abortCause === "timeout" ? describeTimeout(watchdog.timeoutSec) : "eval cell cancelled";
      // The kernel killed it after the grace we passed (or, with none configured, its runtime's own: at most the
      // default, and the JS kernel's is shorter): the grace that really passed, never the shutdown that followed.
      const graceMs = Math.min(
        configuredGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
        performance.now() - interruptedAt,
      );
      const graceSec = formatGrace(graceMs);
      outcome.notices.push(
        `${what}; the kernel did not stop within ${graceSec}s of the interrupt and was killed; state was lost`,
      );
    } else {
      outcome.notices.push(describeDeathDuringCell(exit));
      outcome.error = {
        ename: "KernelDied",
        evalue: `kernel died (${describeExitCause(exit)})`,
        traceback: [],
      };
      const tail = trimStderrTail(exit?.stderrTail);
      if (tail) {
        outcome.notices.push(`kernel stderr (last lines):\n${tail}`);
        outcome.error.traceback = tail.split("\n");
      }
    }
    return { kind: "finished", outcome, isKernelLost: true };
  } finally {
    detachSources();
    removeExitListener();
    options.cellAbort?.release(cellAbort);
    watchdog.dispose();
    cellScope?.abort(new DOMException("the cell ended", "AbortError"));
  }
}

/** The kernel was already closed, or died before it acknowledged the request. */
function isNotStarted(err: unknown): boolean {
  if (isEvalkitError(err, "KERNEL_CLOSED")) return true;
  return isEvalkitError(err, "KERNEL_DIED") && err.details.started === false;
}

/** The exit event can trail the rejection by a tick; wait briefly so the cause is not lost. */
function waitForExit(kernel: Kernel, timeoutMs: number): Promise<KernelExit | undefined> {
  return new Promise((resolve) => {
    let isSettled = false;
    let remove: (() => void) | undefined;
    const settle = (exit: KernelExit | undefined) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      remove?.();
      resolve(exit);
    };
    const timer = setTimeout(() => settle(undefined), timeoutMs);
    remove = kernel.onExit((exit) => settle(exit));
    if (isSettled) remove();
  });
}
