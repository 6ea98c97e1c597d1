// The one place a kernel keeps a running cell's outputs: passed on live, retained with a bound on stream text.
import type { CellErrorInfo, KernelOutput } from "../contracts/outputs.js";
import type { ExecuteOptions, ExecuteOutcome } from "./kernel.js";

/** Stream text a cell keeps in `outcome.outputs` unless the kernel is told otherwise (1 MiB). */
export const DEFAULT_RETAIN_STREAM_BYTES = 1024 * 1024;

/** A cell between its execute request and its `done`. */
export class CellRecord {
  readonly outputs: KernelOutput[] = [];
  error: CellErrorInfo | undefined;
  private retainedStreamBytes = 0;
  private isTruncated = false;
  readonly startedAt = performance.now();

  constructor(
    readonly id: string,
    readonly options: ExecuteOptions,
    private readonly retainLimit = DEFAULT_RETAIN_STREAM_BYTES,
  ) {}

  /** Passes an output on and keeps it; stream text past the limit only reaches `onOutput`. */
  add(output: KernelOutput): void {
    if (output.type === "error")
      this.error = { ename: output.ename, evalue: output.evalue, traceback: output.traceback };
    this.options.onOutput?.(output);
    if (output.type !== "stream") {
      this.outputs.push(output);
      return;
    }
    this.retainedStreamBytes += output.text.length;
    if (this.retainedStreamBytes > this.retainLimit) {
      this.isTruncated = true;
      return;
    }
    const last = this.outputs[this.outputs.length - 1];
    if (last?.type === "stream" && last.name === output.name) last.text += output.text;
    else this.outputs.push({ type: "stream", name: output.name, text: output.text });
  }

  /** The outcome of a cell that reached its end. */
  outcome(status: "ok" | "error", cancelled: boolean, executionCount: number | null): ExecuteOutcome {
    return {
      status,
      cancelled,
      executionCount,
      outputs: this.outputs,
      ...(this.error ? { error: this.error } : {}),
      durationMs: performance.now() - this.startedAt,
      ...(this.isTruncated ? { outputsTruncated: true } : {}),
    };
  }
}
