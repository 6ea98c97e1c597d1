// One JS cell between its execute frame and its end: the signal its bridge calls get, the kill timer an
// interrupt arms, and the clean-up every way it ends goes through.
import { EvalkitError } from "../../errors.js";
import type { CellRecord } from "../cell-record.js";
import type { ExecuteOutcome } from "../kernel.js";
import type { JsKernelProcess } from "./js-kernel-process.js";
import type { RewrittenCell } from "./js-rewrite.js";

/** The cell JsKernel is running. */
export class JsRunningCell {
  /** Aborts the cell's bridge calls when it is interrupted or ends. */
  readonly calls = new AbortController();
  /** The kill after an interrupt the cell does not honour (armed by the first interrupt). */
  escalation: NodeJS.Timeout | undefined;

  constructor(
    /** Its outputs, kept and passed on (cell-record.ts). */
    readonly record: CellRecord,
    readonly executionCount: number | null,
    private readonly proc: JsKernelProcess,
    /** The listener on the cell's abort signal. */
    private readonly onAbort: () => void,
    private readonly resolveOutcome: (outcome: ExecuteOutcome) => void,
    private readonly rejectOutcome: (err: Error) => void,
  ) {}

  /** The execute frame that starts the cell: its rewritten code under `filename`, run in `cwd` when given. */
  executeFrame(rewritten: RewrittenCell, filename: string, cwd: string | undefined): Record<string, unknown> {
    const { options } = this.record;
    return {
      type: "execute",
      id: this.record.id,
      code: rewritten.code,
      isAsync: rewritten.isAsync,
      hasResult: rewritten.hasResult,
      lineOffset: rewritten.lineOffset,
      filename,
      executionCount: this.executionCount,
      ...(options.silent ? { silent: true } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(options.env ? { env: options.env } : {}),
    };
  }

  resolve(outcome: ExecuteOutcome): void {
    this.finish();
    this.resolveOutcome(outcome);
  }

  reject(err: Error): void {
    this.finish();
    this.rejectOutcome(err);
  }

  private finish(): void {
    clearTimeout(this.escalation);
    this.record.options.signal?.removeEventListener("abort", this.onAbort);
    this.calls.abort(new EvalkitError("ABORTED", "the cell ended"));
    // An idle kernel must not keep the host alive.
    this.proc.setRef(false);
  }
}
