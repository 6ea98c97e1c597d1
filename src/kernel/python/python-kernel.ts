// One retained Python interpreter: spawn through the bootstrap, handshake, execute cells, interrupt, kill ladder.

import type { KernelOutput } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import { requireSandboxFeatures } from "../../runtime/sandbox-probe.js";
import { createRandomToken } from "../../text/random-tokens.js";
import { CellRecord } from "../cell-record.js";
import { answerHostCall } from "../host-calls.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../kernel.js";
import { signalGroup } from "../process-group.js";
import { countOwnProcesses } from "../process-tree.js";
import { outputOfDisplayFrame } from "../runner-frames.js";
import { buildPythonCommand, buildRunnerConfig, withMallocTuning } from "./python-command.js";
import type { PythonKernelInfo, PythonKernelOptions } from "./python-kernel-options.js";
import { type CellFrame, PythonKernelProcess } from "./python-kernel-process.js";
import { buildRunnerBundle } from "./runner-bundle.js";

interface RunningCell {
  /** Its outputs, kept and passed on (cell-record.ts). */
  record: CellRecord;
  /** Secret sent with the execute request; result/error/done frames without it were forged by the cell. */
  nonce: string;
  /** The runner has begun the cell (any frame of it arrived). */
  isStarted: boolean;
  /** Bridge calls in flight (made on the first one). */
  calls: Map<string, AbortController> | undefined;
  /** Settle through {@link PythonKernel.settle}, which ends the cell's calls and its abort listener first. */
  resolve: (outcome: ExecuteOutcome) => void;
  reject: (err: Error) => void;
  /** Undoes what the cell's abort signal set up (only a cell with a signal has one). */
  detachSignal: (() => void) | undefined;
}

let kernelSerial = 0;

/** A retained Python subprocess speaking evalkit's NDJSON protocol (docs/protocol.md). */
export class PythonKernel implements Kernel {
  readonly language = "py" as const;
  info: PythonKernelInfo | undefined;
  private process: PythonKernelProcess | undefined;
  private readonly options: PythonKernelOptions;
  private readonly trace: boolean;
  private running: RunningCell | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private exitListeners = new Set<(exit: KernelExit) => void>();
  private completions = new Map<string, (reply: { status: string; indent: string }) => void>();
  private completers = new Map<string, (reply: { start: number; matches: string[] }) => void>();
  private cellSerial = 0;
  private readonly name = `k${++kernelSerial}`;

  constructor(options: PythonKernelOptions) {
    this.options = options;
    this.trace = options.trace ?? process.env.EVALKIT_PYTHON_IPC_TRACE === "1";
  }

  get isAlive(): boolean {
    return this.process?.isAlive === true;
  }

  /** The runner's process id (the process-group id of everything the kernel started). */
  get pid(): number | undefined {
    return this.process?.child.pid;
  }

  /** Spawn the interpreter, send the runner, wait for `ready`. */
  async start(): Promise<void> {
    if (this.process) throw new EvalkitError("KERNEL_START_FAILED", "kernel already started");
    if (this.options.sandbox && this.options.launcher?.length) {
      throw new EvalkitError("INVALID_INPUT", "sandbox: cannot be combined with a launcher", {
        field: "sandbox",
      });
    }
    const bwrap = this.options.sandbox ? await requireSandboxFeatures() : undefined;
    const { command, args } = buildPythonCommand(this.options, bwrap);
    const { env, added } = withMallocTuning(this.options.env ?? (process.env as Record<string, string>));
    // The host's tasks, counted before the sandbox exists (inside, the runner counts its own), plus bwrap itself.
    const processesBase =
      this.options.sandbox && this.options.limits?.processes !== undefined
        ? countOwnProcesses() + 1
        : undefined;
    const proc = new PythonKernelProcess(
      this.options,
      { command, args, env },
      {
        onFrame: (frame, isPlain) => this.onFrame(frame, isPlain),
        onProtocolError: (err) => this.failProtocol(err),
        onExit: (exit) => this.onProcessExit(exit),
      },
      this.trace,
    );
    this.process = proc;
    const bundle = buildRunnerBundle(buildRunnerConfig(this.options, added, processesBase));
    try {
      const frame = await proc.handshake(bundle, this.options.startTimeoutMs ?? 15_000);
      this.info = {
        pid: frame.pid,
        pythonVersion: frame.python,
        implementation: frame.implementation,
        executable: frame.executable,
        protocol: frame.protocol,
        cwd: frame.cwd,
      };
    } catch (err) {
      await this.shutdown();
      throw err;
    }
  }

  /** Run one cell. Cells queue: a second call waits for the first. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    const run = this.queue.then(() => this.runCell(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (!this.isAlive) {
      // `started: false` tells callers the cell never reached the kernel, so re-running it is safe.
      return Promise.reject(this.deadError("kernel is not running", { started: false }));
    }
    const id = `${this.name}-${++this.cellSerial}`;
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const cell: RunningCell = {
        record: new CellRecord(id, options, this.options.retainStreamBytes),
        nonce: createRandomToken(12),
        isStarted: false,
        calls: undefined,
        resolve,
        reject,
        detachSignal: undefined,
      };
      this.running = cell;
      const { signal } = options;
      let onAbort: (() => void) | undefined;
      if (signal !== undefined) {
        let escalation: NodeJS.Timeout | undefined;
        const abort = () => {
          this.interrupt();
          escalation ??= setTimeout(() => {
            if (this.running !== cell) return;
            void this.killAfterInterrupt(cell);
          }, this.options.interruptGraceMs ?? 5000);
        };
        onAbort = abort;
        cell.detachSignal = () => {
          clearTimeout(escalation);
          signal.removeEventListener("abort", abort);
        };
      }
      const request: Record<string, unknown> = { id, code, nonce: cell.nonce };
      if (options.silent) request.silent = true;
      if (options.storeHistory === false) request.storeHistory = false;
      if (options.cwd) request.cwd = options.cwd;
      if (options.env) request.env = options.env;
      if (options.onInputRequest) request.allowStdin = true;
      this.send(request);
      if (signal !== undefined && onAbort !== undefined) {
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  /** Ends a cell's promise: its abort listener and bridge calls go first, as they always did. */
  private settle(cell: RunningCell, outcome: ExecuteOutcome | Error): void {
    cell.detachSignal?.();
    if (cell.calls !== undefined)
      for (const controller of cell.calls.values()) controller.abort(new Error("cell ended"));
    if (outcome instanceof Error) cell.reject(outcome);
    else cell.resolve(outcome);
  }

  /** Ask the running cell to stop (SIGINT to the process group; the runner raises KeyboardInterrupt). */
  interrupt(): void {
    const cell = this.running;
    const child = this.process?.child;
    if (!cell || !child || !this.isAlive) return;
    // Nor does one reach into a sandbox (SIGINT would kill bwrap): there the runner signals its own group.
    if (process.platform === "win32" || this.options.launcher || this.options.sandbox || !cell.isStarted) {
      // No signal crosses a launcher or exists on Windows: the runner interrupts itself. Before the cell has
      // started, a SIGINT could land between cells (where it is ignored); the frame queues behind the execute
      // request instead, so it always reaches the cell it names.
      this.send({ type: "interrupt", id: cell.record.id });
    } else {
      signalGroup(child, "SIGINT");
    }
  }

  /** Ask the runner whether `code` is a complete statement (for interactive front ends). */
  isComplete(code: string): Promise<{ status: "complete" | "incomplete" | "invalid"; indent: string }> {
    if (!this.isAlive) return Promise.reject(this.deadError("kernel is not running"));
    const id = `${this.name}-c${++this.cellSerial}`;
    return new Promise((resolve) => {
      this.completions.set(id, (reply) =>
        resolve({ status: reply.status as "complete" | "incomplete" | "invalid", indent: reply.indent }),
      );
      this.send({ type: "is_complete", id, code });
    });
  }

  /**
   * Tab completion at `cursor` in `code`, from the live namespace (names, attributes, dict keys, paths, magics):
   * replace `code.slice(start, cursor)` with one of `matches`. Resolves to no matches when the kernel is gone.
   */
  complete(code: string, cursor = code.length): Promise<{ start: number; matches: string[] }> {
    if (!this.isAlive) return Promise.resolve({ start: cursor, matches: [] });
    const id = `${this.name}-t${++this.cellSerial}`;
    return new Promise((resolve) => {
      this.completers.set(id, resolve);
      this.send({ type: "complete", id, code, cursor });
    });
  }

  /** exit request → SIGTERM → SIGKILL, each to the whole process group, with short graces (kill-ladder.ts). */
  async shutdown(): Promise<KernelExit | undefined> {
    return this.process?.shutdown();
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    const exit = this.process?.exit;
    if (exit) {
      listener(exit);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private async killAfterInterrupt(cell: RunningCell): Promise<void> {
    await this.shutdown();
    if (this.running === cell) {
      this.running = undefined;
      this.settle(
        cell,
        new EvalkitError(
          "KERNEL_DIED",
          `the cell did not stop within ${this.options.interruptGraceMs ?? 5000} ms of the interrupt; kernel killed, state lost`,
          { killed: true, ...this.process?.exitDetails() },
        ),
      );
    }
  }

  private send(frame: Record<string, unknown>): void {
    this.process?.send(frame);
  }

  private onFrame(frame: CellFrame, isPlain: boolean): void {
    if (frame.type === "complete_reply") {
      this.completers.get(frame.id)?.({ start: frame.start, matches: frame.matches });
      this.completers.delete(frame.id);
      return;
    }
    if (frame.type === "is_complete_reply") {
      this.completions.get(frame.id)?.(frame);
      this.completions.delete(frame.id);
      return;
    }
    if (frame.type === "protocol_error" || frame.type === "unknown") {
      if (this.trace) process.stderr.write(`evalkit: runner frame ignored: ${JSON.stringify(frame)}\n`);
      return;
    }
    const cell = this.running;
    if (frame.type === "call" && (!cell || frame.id !== cell.record.id)) {
      // A thread of a finished cell is waiting on this call: answer, or it waits forever.
      this.send({
        type: "reply",
        callId: frame.callId,
        ok: false,
        error: { name: "CellEnded", message: "the cell that made this call has ended" },
      });
      return;
    }
    if (!cell || frame.id !== cell.record.id) return; // late frames of an abandoned cell
    cell.isStarted = true;
    if (
      (frame.type === "result" || frame.type === "error" || frame.type === "done") &&
      frame.nonce !== cell.nonce
    ) {
      this.reportForgedFrame(cell, frame.type);
      return;
    }
    switch (frame.type) {
      case "started":
        return;
      case "stdout":
      case "stderr":
        this.addOutput(
          cell,
          isPlain
            ? { type: "stream", name: frame.type, text: frame.data, isPlain }
            : { type: "stream", name: frame.type, text: frame.data },
        );
        return;
      case "display":
      case "result":
        this.addOutput(cell, outputOfDisplayFrame(frame));
        return;
      case "clear_output":
        this.addOutput(cell, { type: "clear_output", wait: frame.wait });
        return;
      case "error":
        this.addOutput(cell, {
          type: "error",
          ename: frame.ename,
          evalue: frame.evalue,
          traceback: frame.traceback,
        });
        return;
      case "call":
        void this.answerCall(cell, frame.callId, frame.method, frame.params);
        return;
      case "cancel_call":
        cell.calls?.get(frame.callId)?.abort(new Error("cancelled by the cell"));
        return;
      case "input_request":
        void this.answerInput(cell, frame.prompt, frame.password);
        return;
      case "done":
        this.running = undefined;
        this.settle(
          cell,
          cell.record.outcome(frame.status, frame.cancelled, frame.executionCount, frame.usage),
        );
        return;
    }
  }

  /** A frame that decides the cell's outcome came without the request's secret: the cell wrote it, not the runner. */
  private reportForgedFrame(cell: RunningCell, type: string): void {
    const text = `evalkit: ignored a "${type}" frame that did not carry this cell's secret: code in the cell wrote to the kernel's private protocol channel\n`;
    this.addOutput(cell, { type: "stream", name: "stderr", text });
  }

  private addOutput(cell: RunningCell, output: KernelOutput): void {
    cell.record.add(output);
  }

  private async answerCall(
    cell: RunningCell,
    callId: string,
    method: string,
    params: Record<string, unknown>,
  ) {
    const controller = new AbortController();
    cell.calls ??= new Map();
    cell.calls.set(callId, controller);
    try {
      this.send(
        await answerHostCall(cell.record.options, { callId, method, params, signal: controller.signal }),
      );
    } finally {
      cell.calls?.delete(callId);
    }
  }

  private async answerInput(cell: RunningCell, prompt: string, password: boolean) {
    try {
      const onInputRequest = cell.record.options.onInputRequest;
      if (!onInputRequest) throw new Error("stdin is not available");
      const value = await onInputRequest(prompt, password);
      this.send({ type: "input_reply", id: cell.record.id, value });
    } catch (err) {
      this.send({
        type: "input_reply",
        id: cell.record.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private failProtocol(err: EvalkitError): void {
    const cell = this.running;
    this.running = undefined;
    void this.shutdown();
    if (cell) this.settle(cell, err);
  }

  private onProcessExit(exit: KernelExit): void {
    const cell = this.running;
    this.running = undefined;
    for (const resolve of this.completions.values()) resolve({ status: "invalid", indent: "" });
    this.completions.clear();
    for (const resolve of this.completers.values()) resolve({ start: 0, matches: [] });
    this.completers.clear();
    if (cell) this.settle(cell, this.deadError("kernel died while the cell was running"));
    for (const listener of this.exitListeners) listener(exit);
    this.exitListeners.clear();
  }

  private deadError(message: string, extra: Record<string, unknown> = {}): EvalkitError {
    if (this.process) return this.process.deadError(message, extra);
    return new EvalkitError("KERNEL_DIED", `${message} (not started)`, { ...extra });
  }
}

export type { PythonKernelInfo, PythonKernelOptions } from "./python-kernel-options.js";
