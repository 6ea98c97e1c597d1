// One kernel on a Jupyter server: started by REST, cells over its WebSocket, interrupt and shutdown by REST.
import { randomUUID } from "node:crypto";
import { EvalkitError } from "../../errors.js";
import { CellQueue } from "../client/cell-queue.js";
import { describeCellDeath } from "../client/exit-classification.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../kernel.js";
import { withStartDeadline } from "../process/start-deadline.js";
import { countCodePoints, toUtf16Offset } from "./code-points.js";
import {
  buildMessage,
  type JupyterKernelInfo,
  type JupyterMessage,
  toKernelInfo,
} from "./jupyter-messages.js";
import type { JupyterRest } from "./jupyter-rest.js";
import { JupyterRunningCell } from "./jupyter-running-cell.js";
import { JupyterSocket, type SocketClose } from "./jupyter-socket.js";

/** What a Jupyter kernel is built from. */
export interface JupyterKernelOptions {
  rest: JupyterRest;
  /** The kernelspec to start (`python3`, `ir`). */
  kernelName: string;
  /** The key cells use for it (`py`, `r`). */
  language: string;
  /** How long the server may take from the start request to the kernel's first `kernel_info_reply`. */
  startTimeoutMs?: number;
  /** After an abort of `execute`'s signal: how long the interrupted cell may take before the kernel is deleted. */
  interruptGraceMs?: number;
}

/** Kernels such as IRkernel and IJulia take seconds to start; a server placing pods takes longer. */
export const JUPYTER_START_TIMEOUT_MS = 120_000;
/** The grace after an interrupt before the kernel is deleted, when neither the kernel nor the cell names one. */
export const JUPYTER_INTERRUPT_GRACE_MS = 5000;
/** A kernel that has not answered kernel_info yet is asked again this often (it may drop the first ask). */
const KERNEL_INFO_RETRY_MS = 500;

/** A kernel the server runs for this host, deleted by `shutdown()`. Implements the local kernels' contract. */
export class JupyterKernel implements Kernel {
  readonly language: string;
  /** The server's id of the kernel, once started. */
  kernelId: string | undefined;
  /** Set once the kernel answered `kernel_info_request`. */
  info: JupyterKernelInfo | undefined;
  private socket: JupyterSocket | undefined;
  private readonly session = randomUUID();
  private readonly cells = new CellQueue();
  private running: JupyterRunningCell | undefined;
  private readonly waiters = new Map<string, (message: JupyterMessage) => void>();
  private readonly exitListeners = new Set<(exit: KernelExit) => void>();
  private exit: KernelExit | undefined;
  private shuttingDown: Promise<KernelExit | undefined> | undefined;
  /** Set the moment the socket closes, before the server is asked whether the kernel still exists. */
  private isSocketClosed = false;

  constructor(private readonly options: JupyterKernelOptions) {
    this.language = options.language;
  }

  get isAlive(): boolean {
    return (
      this.socket !== undefined &&
      !this.isSocketClosed &&
      this.exit === undefined &&
      this.shuttingDown === undefined
    );
  }

  async start(): Promise<void> {
    if (this.kernelId !== undefined) throw new EvalkitError("KERNEL_START_FAILED", "kernel already started");
    const { rest, kernelName } = this.options;
    const timeoutMs = this.options.startTimeoutMs ?? JUPYTER_START_TIMEOUT_MS;
    const started = await rest.startKernel(kernelName);
    this.kernelId = started.id;
    if (this.shuttingDown) throw this.closedError("the kernel was shut down while it started");
    const url = `${rest.baseUrl.replace(/^http/, "ws")}api/kernels/${encodeURIComponent(started.id)}/channels?session_id=${this.session}`;
    this.socket = await JupyterSocket.open(
      url,
      rest.authHeaders,
      { onMessage: (message) => this.onMessage(message), onClose: (close) => this.onSocketClose(close) },
      timeoutMs,
    );
    await withStartDeadline(
      this.awaitKernelInfo(),
      timeoutMs,
      () =>
        new EvalkitError(
          "KERNEL_START_FAILED",
          `the ${kernelName} kernel on ${rest.baseUrl} did not answer within ${timeoutMs / 1000}s of its start`,
          { url: rest.baseUrl, kernelName },
        ),
    );
  }

  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (!this.isAlive) return Promise.reject(this.closedError("the kernel is not running"));
    return this.cells.add(() => this.runCell(code, options));
  }

  interrupt(): void {
    const id = this.kernelId;
    if (id === undefined || !this.isAlive) return;
    if (this.running) this.running.isInterrupted = true;
    // The server signals the kernel (or sends interrupt_request on control, per the kernelspec's interrupt_mode).
    this.options.rest.interruptKernel(id).catch(() => undefined);
  }

  shutdown(): Promise<KernelExit | undefined> {
    this.shuttingDown ??= (async () => {
      if (this.exit) return this.exit;
      this.running?.abort(this.diedError("the kernel was shut down while the cell ran", true));
      this.socket?.close();
      const id = this.kernelId;
      if (id !== undefined) await this.options.rest.deleteKernel(id).catch(() => undefined);
      return this.markExit({ exitCode: null, signal: null, requested: true, stderrTail: "" });
    })();
    return this.shuttingDown;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private async runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    const socket = this.socket;
    // KERNEL_CLOSED: the request never left, so the session may run the cell on a fresh kernel.
    if (!socket || !this.isAlive || !socket.isOpen) throw this.closedError("the kernel is not running");
    const request = buildMessage(
      "shell",
      "execute_request",
      {
        code,
        silent: options.silent === true,
        store_history: options.storeHistory ?? !options.silent,
        user_expressions: {},
        // Without a way to answer, the kernel fails input() at once (StdinNotImplementedError), as local kernels do.
        allow_stdin: options.onInputRequest !== undefined,
        // evalkit stops a call at its first failing cell itself and sends cells one at a time. With true, ipykernel
        // aborts every execute request that reaches it shortly after an error (its stop-on-error window), so a
        // cell sent right after a failed one came back "Aborted" without running.
        stop_on_error: false,
      },
      this.session,
    );
    const cell = new JupyterRunningCell(request.header.msg_id, options, {
      replyInput: (input, value) =>
        this.socket?.send(buildMessage("stdin", "input_reply", { value }, this.session, input.header)),
    });
    this.running = cell;
    // A caller's abort gets the local kernels' ladder: interrupt, then delete the kernel after the grace (the
    // cell's own, else the kernel's), with the death notice every kernel client gives (exit-classification.ts).
    let escalation: NodeJS.Timeout | undefined;
    const graceMs = options.interruptGraceMs ?? this.options.interruptGraceMs ?? JUPYTER_INTERRUPT_GRACE_MS;
    const onAbort = () => {
      this.interrupt();
      escalation ??= setTimeout(() => {
        if (this.running !== cell) return;
        // The cell learns why first: shutdown() would end it as shut down, not as killed after its interrupt.
        cell.abort(
          this.classifyDeath({ exitCode: null, signal: null, requested: true, stderrTail: "" }, graceMs),
        );
        void this.shutdown();
      }, graceMs);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      socket.send(request);
      if (options.signal?.aborted) onAbort();
      return await cell.done;
    } finally {
      clearTimeout(escalation);
      options.signal?.removeEventListener("abort", onAbort);
      if (this.running === cell) this.running = undefined;
    }
  }

  /** Whether `code` is a whole cell (`is_complete_request`); a kernel that does not say counts it complete. */
  async isComplete(
    code: string,
    timeoutMs = 2000,
  ): Promise<{ status: "complete" | "incomplete" | "invalid"; indent: string }> {
    const reply = await this.askShell("is_complete_request", { code }, "is_complete_reply", timeoutMs);
    // `unknown` (and no answer) runs the code as it is, like a kernel without the request.
    const status = reply?.status === "incomplete" || reply?.status === "invalid" ? reply.status : "complete";
    return { status, indent: typeof reply?.indent === "string" ? reply.indent : "" };
  }

  /**
   * Completions at `cursor` (UTF-16 units, as the Kernel contract counts; `complete_request`); none when the
   * kernel does not answer within `timeoutMs`. Jupyter counts cursors in code points since protocol 5.2.
   */
  async complete(
    code: string,
    cursor: number = code.length,
    timeoutMs = 2000,
  ): Promise<{ start: number; matches: string[] }> {
    const at = Math.max(0, Math.min(cursor, code.length));
    const reply = await this.askShell(
      "complete_request",
      { code, cursor_pos: countCodePoints(code, at) },
      "complete_reply",
      timeoutMs,
    );
    const matches = Array.isArray(reply?.matches) ? reply.matches.map(String) : [];
    const start = typeof reply?.cursor_start === "number" ? toUtf16Offset(code, reply.cursor_start) : at;
    return { start, matches };
  }

  /** A shell request's reply content, or undefined when the kernel is gone or silent past `timeoutMs`. */
  private askShell(
    msgType: string,
    content: Record<string, unknown>,
    replyType: string,
    timeoutMs: number,
  ): Promise<Record<string, unknown> | undefined> {
    const socket = this.socket;
    if (!socket || !this.isAlive) return Promise.resolve(undefined);
    const request = buildMessage("shell", msgType, content, this.session);
    const id = request.header.msg_id;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const finish = (value: Record<string, unknown> | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(id);
        resolve(value);
      };
      this.waiters.set(id, (message) => {
        if (message.header.msg_type === replyType) finish(message.content);
      });
      socket.send(request);
    });
  }

  private onMessage(message: JupyterMessage): void {
    const parent = message.parent_header.msg_id;
    if (message.header.msg_type === "status") {
      const state = message.content.execution_state;
      // The server restarted a kernel that died (its state is gone) or gave up on it: either way this one is over.
      if (state === "restarting" || state === "dead") {
        this.die(`the kernel ${state === "dead" ? "died" : "died and the server restarted it"}`);
        return;
      }
    }
    if (message.header.msg_type === "shutdown_reply" && message.channel === "iopub") {
      // The server broadcasts this when anyone shuts the kernel down or restarts it (not us: we are shutting down).
      this.die(
        message.content.restart === true
          ? "the kernel was restarted on the server (its state is gone)"
          : "the kernel was shut down on the server",
      );
      return;
    }
    if (parent === undefined) return;
    const waiter = this.waiters.get(parent);
    if (waiter) {
      waiter(message);
      return;
    }
    if (this.running?.msgId === parent) this.running.handle(message);
  }

  private async onSocketClose(close: SocketClose): Promise<void> {
    this.isSocketClosed = true;
    if (this.exit || this.shuttingDown) return;
    const id = this.kernelId;
    const gone =
      id === undefined
        ? true
        : await this.options.rest.getKernel(id).then(
            (k) => !k,
            () => false,
          );
    const why = gone
      ? "the Jupyter server no longer has the kernel (it died, was culled or the server restarted)"
      : `the kernel's WebSocket closed (code ${close.code}${close.reason ? `: ${close.reason}` : ""})`;
    this.die(why);
    // A kernel still on the server but unreachable from here is deleted, so it cannot linger.
    if (!gone && id !== undefined) this.options.rest.deleteKernel(id).catch(() => undefined);
  }

  private die(cause: string): void {
    if (this.exit || this.shuttingDown) return;
    this.socket?.close();
    const running = this.running;
    const exit = this.markExit({ exitCode: null, signal: null, requested: false, stderrTail: "", cause });
    running?.abort(this.classifyDeath(exit));
  }

  private markExit(exit: KernelExit): KernelExit {
    if (this.exit) return this.exit;
    this.exit = exit;
    for (const listener of [...this.exitListeners]) listener(exit);
    return exit;
  }

  /** Asks kernel_info until the kernel answers (ipykernel may drop requests sent before it is ready). */
  private awaitKernelInfo(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const asked: string[] = [];
      const ask = () => {
        if (this.exit || this.shuttingDown) {
          finish();
          reject(this.closedError(this.exit?.cause ?? "the kernel ended while it started"));
          return;
        }
        const request = buildMessage("shell", "kernel_info_request", {}, this.session);
        asked.push(request.header.msg_id);
        this.waiters.set(request.header.msg_id, (message) => {
          if (message.header.msg_type !== "kernel_info_reply") return;
          this.info = toKernelInfo(message.content);
          finish();
          resolve();
        });
        this.socket?.send(request);
      };
      const timer = setInterval(ask, KERNEL_INFO_RETRY_MS);
      const finish = () => {
        clearInterval(timer);
        for (const id of asked) this.waiters.delete(id);
      };
      ask();
    });
  }

  private closedError(message: string): EvalkitError {
    return new EvalkitError("KERNEL_CLOSED", message, { url: this.options.rest.baseUrl });
  }

  /** The death notice of the local kernels (KERNEL_DIED, `killed` after an ignored interrupt), with the server. */
  private classifyDeath(exit: KernelExit, killedAfterMs?: number): EvalkitError {
    const err = describeCellDeath(`${this.language} (Jupyter)`, exit, { killedAfterMs });
    Object.assign(err.details as Record<string, unknown>, { started: true, url: this.options.rest.baseUrl });
    return err;
  }

  private diedError(message: string, killed: boolean): EvalkitError {
    const details: Record<string, unknown> = { started: true, killed, url: this.options.rest.baseUrl };
    if (this.exit) details.exit = this.exit;
    return new EvalkitError("KERNEL_DIED", message, details);
  }
}
