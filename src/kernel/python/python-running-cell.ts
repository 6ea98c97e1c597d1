// One Python cell between its execute request and its `done`: its frames as outputs, forged outcome frames
// refused, its bridge calls and input() answered, its promise settled.
import { createRandomToken } from "../../text/random-tokens.js";
import { CellRecord } from "../cell-record.js";
import { answerHostCall } from "../host-calls.js";
import type { ExecuteOptions, ExecuteOutcome } from "../kernel.js";
import { outputOfDisplayFrame } from "../runner-frames.js";
import type { CellFrame, PythonKernelProcess } from "./python-kernel-process.js";

/** The cell PythonKernel is running; it gets only frames that name the cell's id. */
export class PythonRunningCell {
  /** Its outputs, kept and passed on (cell-record.ts). */
  readonly record: CellRecord;
  /** Secret sent with the execute request; result/error/done frames without it were forged by the cell. */
  readonly nonce: string;
  /** The runner has begun the cell (any frame of it arrived). */
  isStarted = false;
  /** Undoes what the cell's abort signal set up (only a cell with a signal has one). */
  detachSignal: (() => void) | undefined = undefined;
  /** Bridge calls in flight (made on the first one). */
  private calls: Map<string, AbortController> | undefined = undefined;

  constructor(
    id: string,
    options: ExecuteOptions,
    retainStreamBytes: number | undefined,
    private readonly process: PythonKernelProcess,
    private readonly resolve: (outcome: ExecuteOutcome) => void,
    private readonly reject: (err: Error) => void,
  ) {
    // The record first: a cell's duration counts from before its secret is drawn.
    this.record = new CellRecord(id, options, retainStreamBytes);
    this.nonce = createRandomToken(12);
  }

  /** The execute frame that starts the cell (docs/protocol.md). */
  executeRequest(code: string): Record<string, unknown> {
    const { options } = this.record;
    const request: Record<string, unknown> = { id: this.record.id, code, nonce: this.nonce };
    if (options.silent) request.silent = true;
    if (options.storeHistory === false) request.storeHistory = false;
    if (options.cwd) request.cwd = options.cwd;
    if (options.env) request.env = options.env;
    if (options.onInputRequest) request.allowStdin = true;
    return request;
  }

  /**
   * One frame of this cell; the outcome when it is the cell's genuine `done`. The kernel settles the cell
   * itself, once it no longer counts it as running.
   */
  take(frame: CellFrame, isPlain: boolean): ExecuteOutcome | undefined {
    this.isStarted = true;
    if (
      (frame.type === "result" || frame.type === "error" || frame.type === "done") &&
      frame.nonce !== this.nonce
    ) {
      this.reportForgedFrame(frame.type);
      return undefined;
    }
    switch (frame.type) {
      case "stdout":
      case "stderr":
        this.record.add(
          isPlain
            ? { type: "stream", name: frame.type, text: frame.data, isPlain }
            : { type: "stream", name: frame.type, text: frame.data },
        );
        return undefined;
      case "display":
      case "result":
        this.record.add(outputOfDisplayFrame(frame));
        return undefined;
      case "clear_output":
        this.record.add({ type: "clear_output", wait: frame.wait });
        return undefined;
      case "error":
        this.record.add({
          type: "error",
          ename: frame.ename,
          evalue: frame.evalue,
          traceback: frame.traceback,
        });
        return undefined;
      case "call":
        void this.answerCall(frame.callId, frame.method, frame.params);
        return undefined;
      case "cancel_call":
        this.calls?.get(frame.callId)?.abort(new Error("cancelled by the cell"));
        return undefined;
      case "input_request":
        void this.answerInput(frame.prompt, frame.password);
        return undefined;
      case "done":
        return this.record.outcome(frame.status, frame.cancelled, frame.executionCount, frame.usage);
      default:
        return undefined;
    }
  }

  /** Ends the cell's promise: its abort listener and bridge calls go first, as they always did. */
  settle(outcome: ExecuteOutcome | Error): void {
    this.detachSignal?.();
    if (this.calls !== undefined)
      for (const controller of this.calls.values()) controller.abort(new Error("cell ended"));
    if (outcome instanceof Error) this.reject(outcome);
    else this.resolve(outcome);
  }

  /** A frame that decides the cell's outcome came without the request's secret: the cell wrote it, not the runner. */
  private reportForgedFrame(type: string): void {
    const text = `evalkit: ignored a "${type}" frame that did not carry this cell's secret: code in the cell wrote to the kernel's private protocol channel\n`;
    this.record.add({ type: "stream", name: "stderr", text });
  }

  private async answerCall(callId: string, method: string, params: Record<string, unknown>) {
    const controller = new AbortController();
    this.calls ??= new Map();
    this.calls.set(callId, controller);
    try {
      this.process.send(
        await answerHostCall(this.record.options, { callId, method, params, signal: controller.signal }),
      );
    } finally {
      this.calls?.delete(callId);
    }
  }

  private async answerInput(prompt: string, password: boolean) {
    try {
      const onInputRequest = this.record.options.onInputRequest;
      if (!onInputRequest) throw new Error("stdin is not available");
      const value = await onInputRequest(prompt, password);
      this.process.send({ type: "input_reply", id: this.record.id, value });
    } catch (err) {
      this.process.send({
        type: "input_reply",
        id: this.record.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
