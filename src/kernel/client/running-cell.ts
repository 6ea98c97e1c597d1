// One cell between its execute frame and its end: its frames as outputs, forged outcome frames refused, its
// bridge calls and input() answered, the one escalation timer after an interrupt, its promise settled once.
import type { KernelOutput } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import { createRandomToken } from "../../text/random-tokens.js";
import type { ExecuteOptions, ExecuteOutcome } from "../kernel.js";
import { outputOfDisplayFrame } from "../wire/runner-frames.js";
import { CellRecord } from "./cell-record.js";
import { answerHostCall } from "./host-calls.js";
import type { CellFrame } from "./runtime-description.js";

/** The output a cell frame stands for, or undefined for frames that are not output. */
export function outputOfFrame(
  frame: CellFrame,
  isPlain: boolean,
  mapTraceback: ((traceback: string[]) => string[]) | undefined,
): KernelOutput | undefined {
  switch (frame.type) {
    case "stdout":
    case "stderr":
      return isPlain
        ? { type: "stream", name: frame.type, text: frame.data, isPlain }
        : { type: "stream", name: frame.type, text: frame.data };
    case "display":
    case "result":
      return outputOfDisplayFrame(frame);
    case "clear_output":
      return { type: "clear_output", wait: frame.wait };
    case "error":
      return {
        type: "error",
        ename: frame.ename,
        evalue: frame.evalue,
        traceback: mapTraceback ? mapTraceback(frame.traceback) : frame.traceback,
      };
    default:
      return undefined;
  }
}

/** What the cell needs from its kernel client. */
export interface CellHost {
  send(frame: Record<string, unknown>): void;
  mapTraceback: ((traceback: string[]) => string[]) | undefined;
}

/** The cell the client is running; it gets only frames of this cell. */
export class RunningCell {
  readonly record: CellRecord;
  /** Secret sent with the execute frame (runtimes that echo it); outcome frames without it were forged. */
  readonly nonce: string | undefined;
  /** The runner has begun the cell (any frame of it arrived). */
  isStarted = false;
  /** The escalation fired: the kernel is being killed because the cell ignored its interrupt. */
  isKilling = false;
  /** The grace the armed escalation gave the cell (named in the death notice). */
  killGraceMs: number | undefined;
  /** The one kill timer after an interrupt the cell does not honour (armed by the first interrupt). */
  private escalation: NodeJS.Timeout | undefined;
  /** Bridge calls in flight (made on the first one). */
  private calls: Map<string, AbortController> | undefined;
  private detachSignal: (() => void) | undefined;
  private isSettled = false;

  constructor(
    id: string,
    options: ExecuteOptions,
    retainStreamBytes: number | undefined,
    echoesNonce: boolean,
    /** The host's count for the cell (runtimes that count on the host), else undefined. */
    readonly hostCount: number | null | undefined,
    private readonly host: CellHost,
    private readonly resolve: (outcome: ExecuteOutcome) => void,
    private readonly reject: (err: Error) => void,
  ) {
    // The record first: a cell's duration counts from before its secret is drawn.
    this.record = new CellRecord(id, options, retainStreamBytes);
    this.nonce = echoesNonce ? createRandomToken(12) : undefined;
  }

  get id(): string {
    return this.record.id;
  }

  /** Calls `onAbort` when the cell's signal aborts (now, if it already has). */
  listen(signal: AbortSignal | undefined, onAbort: () => void): void {
    if (signal === undefined) return;
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    this.detachSignal = () => signal.removeEventListener("abort", onAbort);
  }

  /** Arms the kill after `graceMs` unless it is armed already: the first interrupt decides. */
  armEscalation(graceMs: number, kill: () => void): void {
    if (this.escalation !== undefined || this.isSettled) return;
    this.killGraceMs = graceMs;
    this.escalation = setTimeout(kill, graceMs);
  }

  /** Aborts the cell's bridge calls (an interrupt reaches a cell waiting on the host at once). */
  abortCalls(reason: Error): void {
    if (this.calls !== undefined) for (const controller of this.calls.values()) controller.abort(reason);
  }

  /** One frame of this cell; the outcome when it is the cell's genuine `done`. */
  take(frame: CellFrame, isPlain: boolean): ExecuteOutcome | undefined {
    this.isStarted = true;
    if (
      this.nonce !== undefined &&
      (frame.type === "result" || frame.type === "error" || frame.type === "done") &&
      frame.nonce !== this.nonce
    ) {
      this.reportForgedFrame(frame.type);
      return undefined;
    }
    switch (frame.type) {
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
        return this.record.outcome(
          frame.status,
          frame.cancelled,
          this.hostCount !== undefined ? this.hostCount : frame.executionCount,
          frame.usage,
        );
      default: {
        const output = outputOfFrame(frame, isPlain, this.host.mapTraceback);
        if (output !== undefined) this.record.add(output);
        return undefined;
      }
    }
  }

  /** Ends the cell's promise once: its timer, abort listener and bridge calls go first. */
  settle(outcome: ExecuteOutcome | Error): void {
    if (this.isSettled) return;
    this.isSettled = true;
    clearTimeout(this.escalation);
    this.detachSignal?.();
    // Only a cell with calls in flight pays for an error (and its stack): a warm cell makes none.
    if (this.calls !== undefined && this.calls.size > 0)
      this.abortCalls(new EvalkitError("ABORTED", "the cell ended"));
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
      const reply = await answerHostCall(this.record.options, {
        callId,
        method,
        params,
        signal: controller.signal,
      });
      this.host.send(reply);
    } finally {
      this.calls?.delete(callId);
    }
  }

  private async answerInput(prompt: string, password: boolean) {
    try {
      const onInputRequest = this.record.options.onInputRequest;
      if (!onInputRequest) throw new Error("stdin is not available");
      const value = await onInputRequest(prompt, password);
      this.host.send({ type: "input_reply", id: this.record.id, value });
    } catch (err) {
      this.host.send({
        type: "input_reply",
        id: this.record.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
