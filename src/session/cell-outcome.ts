// What a cell's outcome is made of: timeout/cancel classification, notices, the outputs a library caller keeps.
import type { KernelOutput } from "../contracts/outputs.js";
import type { ExecuteOutcome, KernelExit } from "../kernel/kernel.js";
import { DisplayRetention } from "../output/display/display-retention.js";
import { RETAINED_STREAM_CHARS } from "../output/streams/retained-budget.js";
import { type CellWatchdog, describeTimeout } from "./cell-watchdog.js";
import type { SessionCellOutcome } from "./session-types.js";

/** Why the host stopped a cell early. */
export type AbortCause = "timeout" | "cancelled" | "disposed";

/**
 * A library caller's copy of a cell's outputs (the kernel keeps none: `retainOutputs: false`), in order, stream
 * text coalesced and capped at the one budget; later streams past it are dropped (they still reach `onOutput`).
 */
export class RetainedOutputs {
  readonly items: KernelOutput[] = [];
  private readonly displays = new DisplayRetention(this.items);
  private chars = 0;

  constructor(private readonly limit: number = RETAINED_STREAM_CHARS) {}

  add(output: KernelOutput): void {
    if (output.type !== "stream") {
      this.displays.keep(output);
      return;
    }
    if (this.chars >= this.limit) return;
    const text = output.text.slice(0, this.limit - this.chars);
    this.chars += text.length;
    const last = this.items[this.items.length - 1];
    if (last?.type === "stream" && last.name === output.name) last.text += text;
    else this.items.push({ type: "stream", name: output.name, text });
  }
}

export function buildOutcome(
  result: ExecuteOutcome,
  outputs: KernelOutput[],
  abortCause: AbortCause | undefined,
  watchdog: CellWatchdog,
  durationMs: number,
  isKernelRetained = true,
): SessionCellOutcome {
  const outcome: SessionCellOutcome = {
    status: result.status,
    executionCount: result.executionCount,
    outputs,
    durationMs,
    notices: [],
  };
  if (result.error) outcome.error = result.error;
  if (result.usage) outcome.usage = result.usage;
  // A per-call kernel (evalkit exec, per-call mode) is shut down when the call ends, and the first cell that is
  // not ok ends the call: "remains running" would promise state that is about to go.
  const kernelFate = isKernelRetained
    ? "kernel interrupted but remains running"
    : "kernel interrupted; it ends with this call (per-call mode)";
  // Once the budget ran out or the caller gave up, the cell did not end on its own terms even when it
  // reports `ok` (os.system() swallows SIGINT while its child dies of it): say so.
  if (abortCause === "timeout") {
    outcome.status = "timeout";
    outcome.notices.push(`${describeTimeout(watchdog.timeoutSec)}; ${kernelFate}`);
  } else if (abortCause !== undefined) {
    outcome.status = "cancelled";
    outcome.notices.push(
      abortCause === "disposed"
        ? "eval cell cancelled: the session manager was disposed"
        : `eval cell cancelled; ${kernelFate}`,
    );
  } else if (result.cancelled) {
    // Interrupted from elsewhere (a signal sent by hand): report it as cancelled all the same.
    outcome.status = "cancelled";
    outcome.notices.push(
      isKernelRetained
        ? "eval cell was interrupted; kernel remains running"
        : "eval cell was interrupted; its kernel ends with this call (per-call mode)",
    );
  }
  return outcome;
}

export function buildAbortedBeforeStart(cause: AbortCause, watchdog: CellWatchdog): SessionCellOutcome {
  const notice =
    cause === "timeout"
      ? `${describeTimeout(watchdog.timeoutSec)} before it started`
      : "eval cell cancelled before it started";
  return {
    status: cause === "timeout" ? "timeout" : "cancelled",
    executionCount: null,
    outputs: [],
    durationMs: 0,
    notices: [notice],
  };
}

/** The exit facts a kernel put in its KERNEL_DIED error, in either shape kernels use. */
export function exitFromError(err: { details: Record<string, unknown> }): KernelExit | undefined {
  const raw = err.details.exit;
  if (typeof raw === "object" && raw !== null && "requested" in raw) return raw as KernelExit;
  const { exitCode, signal, stderrTail, requested, cause } = err.details;
  if (exitCode === undefined && signal === undefined) return undefined;
  return {
    exitCode: typeof exitCode === "number" ? exitCode : null,
    signal: typeof signal === "string" ? (signal as NodeJS.Signals) : null,
    requested: requested === true,
    stderrTail: typeof stderrTail === "string" ? stderrTail : "",
    ...(typeof cause === "string" ? { cause } : {}),
  };
}

/** Seconds with one decimal at most: `5`, `0.5`. */
export function formatGrace(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1);
}

/** A cell that never ran because the manager was disposed first. */
export function cancelledByDispose(): SessionCellOutcome {
  return {
    status: "cancelled",
    executionCount: null,
    outputs: [],
    durationMs: 0,
    notices: ["eval cell cancelled before it started: the session manager was disposed"],
  };
}

/** A cell whose caller gave up while it waited for another call on the session. */
export function cancelledWhileQueued(): SessionCellOutcome {
  return {
    status: "cancelled",
    executionCount: null,
    outputs: [],
    durationMs: 0,
    notices: ["eval cell cancelled while waiting for another call on this session to finish"],
  };
}
