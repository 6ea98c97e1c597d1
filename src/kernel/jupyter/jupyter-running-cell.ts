// One cell on a Jupyter kernel: its execute_request's iopub outputs, reply, stdin requests and end.
import { CellRecord } from "../client/cell-record.js";
import type { ExecuteOptions, ExecuteOutcome } from "../kernel.js";
import { type JupyterMessage, toErrorInfo, toKernelOutput } from "./jupyter-messages.js";

/** What a cell needs from its kernel. */
export interface RunningCellHost {
  /** Sends an `input_reply` for an `input_request` of this cell. */
  replyInput: (request: JupyterMessage, value: string) => void;
}

/** A cell between its execute_request and both its execute_reply and its iopub `idle`. */
export class JupyterRunningCell {
  readonly record: CellRecord;
  /** Set when the kernel was interrupted while this cell ran. */
  isInterrupted = false;
  private reply: Record<string, unknown> | undefined;
  private isIdle = false;
  private settle: ((outcome: ExecuteOutcome) => void) | undefined;
  private fail: ((err: unknown) => void) | undefined;
  readonly done: Promise<ExecuteOutcome>;

  constructor(
    readonly msgId: string,
    options: ExecuteOptions,
    private readonly host: RunningCellHost,
  ) {
    this.record = new CellRecord(msgId, options);
    this.done = new Promise<ExecuteOutcome>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
  }

  /** Takes a message whose parent is this cell's request. */
  handle(message: JupyterMessage): void {
    const type = message.header.msg_type;
    if (message.channel === "shell" || type === "execute_reply") {
      if (type === "execute_reply") {
        this.reply = message.content;
        this.finishIfDone();
      }
      return;
    }
    if (message.channel === "stdin" || type === "input_request") {
      if (type === "input_request") this.answerInput(message);
      return;
    }
    if (type === "status") {
      if (message.content.execution_state === "idle") {
        this.isIdle = true;
        this.finishIfDone();
      }
      return;
    }
    const output = toKernelOutput(message);
    if (output) this.record.add(output);
  }

  /** The cell ends without a result (the kernel died, the socket closed, the kernel was shut down). */
  abort(err: unknown): void {
    this.fail?.(err);
    this.settle = undefined;
    this.fail = undefined;
  }

  private finishIfDone(): void {
    // The reply can come before the last outputs: iopub's `idle` says every output of the request was sent.
    if (this.reply === undefined || !this.isIdle || !this.settle) return;
    const reply = this.reply;
    const status = reply.status === "ok" ? "ok" : "error";
    if (status === "error" && this.record.error === undefined) {
      // Kernels that report an error only in the reply (and `aborted`) still give the cell an error.
      const info =
        reply.status === "aborted"
          ? { ename: "Aborted", evalue: "the kernel aborted the request", traceback: [] }
          : toErrorInfo(reply);
      this.record.add({ type: "error", ...info });
    }
    const count = typeof reply.execution_count === "number" ? reply.execution_count : null;
    const settle = this.settle;
    this.settle = undefined;
    this.fail = undefined;
    settle(this.record.outcome(status, status === "error" && this.isInterrupted, count));
  }

  private answerInput(request: JupyterMessage): void {
    const ask = this.record.options.onInputRequest;
    const prompt = typeof request.content.prompt === "string" ? request.content.prompt : "";
    if (!ask) {
      // Not sent for allow_stdin: false; a kernel that asks anyway gets an empty line rather than a hang.
      this.host.replyInput(request, "");
      return;
    }
    ask(prompt, request.content.password === true).then(
      (value) => this.host.replyInput(request, value),
      () => this.host.replyInput(request, ""),
    );
  }
}
