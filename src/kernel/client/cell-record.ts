// The one place a kernel keeps a running cell's outputs: passed on live, retained with a bound on stream text.
import type { CellUsage } from "../../contracts/cell-result.js";
import type { CellErrorInfo, KernelOutput } from "../../contracts/outputs.js";
import { DisplayRetention } from "../../output/display/display-retention.js";
import type { ExecuteOptions, ExecuteOutcome } from "../kernel.js";

/** Stream text a cell keeps in `outcome.outputs` unless the kernel is told otherwise (1 MiB). */
export const DEFAULT_RETAIN_STREAM_BYTES = 1024 * 1024;

/** A cell between its execute request and its `done`. */
export class CellRecord {
  readonly outputs: KernelOutput[] = [];
  private readonly displays = new DisplayRetention(this.outputs);
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
    // The caller keeps what it receives (`retainOutputs: false`): the cell's output is retained once, there.
    if (this.options.retainOutputs === false) return;
    if (output.type !== "stream") {
      // Displays are bounded too: a loop of large displays must not grow the host.
      this.displays.keep(output);
      if (this.displays.budget.dropped > 0) this.isTruncated = true;
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

  /** The outcome of a cell that reached its end (with the usage its `done` frame reported, if any). */
  outcome(
    status: "ok" | "error",
    cancelled: boolean,
    executionCount: number | null,
    usage?: CellUsage,
  ): ExecuteOutcome {
    // Built field by field, in the order the fields always had: a warm cell makes one of these.
    const outcome = { status, cancelled, executionCount, outputs: this.outputs } as ExecuteOutcome;
    if (this.error) outcome.error = this.error;
    outcome.durationMs = performance.now() - this.startedAt;
    if (this.isTruncated) outcome.outputsTruncated = true;
    if (usage) outcome.usage = usage;
    return outcome;
  }
}
