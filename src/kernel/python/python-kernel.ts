// One retained Python interpreter: spawn through the bootstrap, handshake, execute cells, interrupt, kill ladder.

import { EvalkitError } from "../../errors.js";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import { type KernelLayers, prepareKernelLayers } from "../../runtime/sandbox-layers.js";
import { requireSandboxFeatures } from "../../runtime/sandbox-probe.js";
import { CellQueue } from "../cell-queue.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../kernel.js";
import { signalGroup } from "../process-group.js";
import { ReplyWaiters } from "../reply-waiters.js";
import { PythonCheckpoints } from "./python-checkpoints.js";
import { buildPythonLaunch } from "./python-command.js";
import {
  kernelInfoOf,
  PYTHON_INTERRUPT_GRACE_MS,
  PYTHON_START_TIMEOUT_MS,
  type PythonKernelInfo,
  type PythonKernelOptions,
} from "./python-kernel-options.js";
import { type CellFrame, PythonKernelProcess } from "./python-kernel-process.js";
import { PythonRunningCell } from "./python-running-cell.js";
import { buildRunnerBundle } from "./runner-bundle.js";
import { warmSandboxCodeCache } from "./sandbox-code-cache.js";

type IsCompleteReply = { status: "complete" | "incomplete" | "invalid"; indent: string };
type CompleteReply = { start: number; matches: string[] };

let kernelSerial = 0;

/** A retained Python subprocess speaking evalkit's NDJSON protocol (docs/protocol.md). */
export class PythonKernel implements Kernel {
  readonly language = "py" as const;
  info: PythonKernelInfo | undefined;
  /** Time travel, when the kernel was started with `checkpoints` and the runner took them (docs/checkpoints.md). */
  checkpoints: PythonCheckpoints | undefined;
  private process: PythonKernelProcess | undefined;
  private readonly options: PythonKernelOptions;
  private readonly trace: boolean;
  private running: PythonRunningCell | undefined;
  private readonly cells = new CellQueue();
  private exitListeners = new Set<(exit: KernelExit) => void>();
  private readonly completions = new ReplyWaiters<IsCompleteReply>();
  private readonly completers = new ReplyWaiters<CompleteReply>();
  private cellSerial = 0;
  private readyToken: string | undefined;
  private readonly name = `k${++kernelSerial}`;
  /** The sandbox's seccomp file and cgroup (removed when the process ends). */
  private layers: KernelLayers | undefined;

  constructor(options: PythonKernelOptions) {
    this.options = options;
    this.trace = options.trace ?? process.env.EVALKIT_PYTHON_IPC_TRACE === "1";
  }

  get isAlive(): boolean {
    return this.process?.isAlive === true && this.checkpoints?.runnerExit === undefined;
  }

  /** The runner's process id (the process-group id of everything the kernel started). */
  get pid(): number | undefined {
    return this.process?.child.pid;
  }

  /** The process that runs cells: `pid` unless the kernel has checkpoints (then a fork of it, changed by restores). */
  get livePid(): number | undefined {
    return this.checkpoints?.livePid ?? this.info?.pid;
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
    // Compiled outside, shown read-only inside: the cache must exist before the sandbox's mounts are decided.
    if (bwrap) await warmSandboxCodeCache(this.options);
    const hostEnv = this.options.env ?? process.env;
    this.layers = bwrap ? prepareKernelLayers(this.options.limits, resolveEvalkitHome(hostEnv)) : undefined;
    let proc: PythonKernelProcess;
    let runnerConfig: Record<string, unknown>;
    try {
      const launch = buildPythonLaunch(this.options, bwrap, this.layers);
      const { command, args, env, seccompFile } = launch;
      runnerConfig = launch.runnerConfig;
      proc = new PythonKernelProcess(
        { ...this.options, ...(this.layers?.cgroup ? { cgroup: this.layers.cgroup } : {}) },
        { command, args, env, ...(seccompFile ? { seccompFile } : {}) },
        {
          onFrame: (frame, isPlain) => this.onFrame(frame, isPlain),
          onProtocolError: (err) => this.failProtocol(err),
          onExit: (exit) => this.onProcessExit(exit),
        },
        this.trace,
      );
    } catch (err) {
      // No process will exit to remove the cgroup: it goes now.
      this.layers?.cgroup?.remove();
      throw err;
    }
    this.process = proc;
    // Built while the interpreter starts up.
    const bundle = buildRunnerBundle(runnerConfig);
    try {
      const ready = await proc.handshake(bundle, this.options.startTimeoutMs ?? PYTHON_START_TIMEOUT_MS);
      this.readyToken = ready.checkpointToken;
      this.info = kernelInfoOf(ready);
      if (this.info.checkpoints) {
        this.checkpoints = new PythonCheckpoints(
          {
            send: (frame) => this.send(frame),
            isProcessAlive: () => this.process?.isAlive === true,
            between: (run) => this.cells.add(run),
          },
          this.info.pid,
          this.readyToken,
        );
        this.checkpoints.cannotSignal = this.options.sandbox !== undefined;
      }
    } catch (err) {
      await this.shutdown();
      throw err;
    }
  }

  /** Run one cell. Cells queue: a second call waits for the first. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    return this.cells.add(() => this.runCell(code, options));
  }

  private runCell(code: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    const proc = this.process;
    if (proc?.isAlive !== true || !this.isAlive) {
      // `started: false` tells callers the cell never reached the kernel, so re-running it is safe.
      return Promise.reject(this.deadError("kernel is not running", { started: false }));
    }
    const id = `${this.name}-${++this.cellSerial}`;
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const cell = new PythonRunningCell(id, options, this.options.retainStreamBytes, proc, resolve, reject);
      this.running = cell;
      this.send(cell.executeRequest(code));
      const { signal } = options;
      if (signal === undefined) return;
      let escalation: NodeJS.Timeout | undefined;
      const onAbort = () => {
        this.interrupt();
        escalation ??= setTimeout(() => {
          if (this.running !== cell) return;
          void this.killAfterInterrupt(cell);
        }, this.options.interruptGraceMs ?? PYTHON_INTERRUPT_GRACE_MS);
      };
      cell.detachSignal = () => {
        clearTimeout(escalation);
        signal.removeEventListener("abort", onAbort);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
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
  isComplete(code: string): Promise<IsCompleteReply> {
    if (!this.isAlive) return Promise.reject(this.deadError("kernel is not running"));
    const id = `${this.name}-c${++this.cellSerial}`;
    return new Promise((resolve) => {
      this.completions.wait(id, resolve);
      this.send({ type: "is_complete", id, code });
    });
  }

  /**
   * Tab completion at `cursor` in `code`, from the live namespace (names, attributes, dict keys, paths, magics):
   * replace `code.slice(start, cursor)` with one of `matches`. Resolves to no matches when the kernel is gone.
   */
  complete(code: string, cursor = code.length): Promise<CompleteReply> {
    if (!this.isAlive) return Promise.resolve({ start: cursor, matches: [] });
    const id = `${this.name}-t${++this.cellSerial}`;
    return new Promise((resolve) => {
      this.completers.wait(id, resolve);
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

  private async killAfterInterrupt(cell: PythonRunningCell): Promise<void> {
    // With checkpoints only the interpreter dies: the root reports it and the cell settles as killed.
    if (await this.checkpoints?.killInterpreter()) return;
    await this.shutdown();
    if (this.running === cell) {
      this.running = undefined;
      cell.settle(
        new EvalkitError(
          "KERNEL_DIED",
          `the cell did not stop within ${this.options.interruptGraceMs ?? PYTHON_INTERRUPT_GRACE_MS} ms of the interrupt; kernel killed, state lost`,
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
      this.completers.answer(frame.id, { start: frame.start, matches: frame.matches });
      return;
    }
    if (frame.type === "is_complete_reply") {
      this.completions.answer(frame.id, { status: frame.status, indent: frame.indent });
      return;
    }
    if (frame.type === "unknown" && this.checkpoints !== undefined) {
      if (frame.raw.type === "checkpoint_reply") {
        this.checkpoints.onReply(frame.raw);
        return;
      }
      if (frame.raw.type === "runner_exit") {
        if (this.checkpoints.onRunnerExit(frame.raw)) this.onRunnerDeath();
        return;
      }
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
    const outcome = cell.take(frame, isPlain);
    if (outcome === undefined) return;
    this.running = undefined;
    cell.settle(outcome);
  }

  private failProtocol(err: EvalkitError): void {
    const cell = this.running;
    this.running = undefined;
    void this.shutdown();
    if (cell) cell.settle(err);
  }

  /** The live runner died but the kernel's root and checkpoints live on (docs/checkpoints.md, crashes). */
  private onRunnerDeath(): void {
    const cell = this.running;
    this.running = undefined;
    this.completions.answerAll(() => ({ status: "invalid", indent: "" }));
    this.completers.answerAll(() => ({ start: 0, matches: [] }));
    const exit = this.checkpoints?.runnerExit;
    const how = exit?.signal ?? `exit code ${exit?.exitCode}`;
    if (cell) {
      cell.settle(
        new EvalkitError("KERNEL_DIED", `kernel died while the cell was running (${how})`, {
          exitCode: exit?.exitCode ?? null,
          signal: exit?.signal ?? null,
          requested: false,
          restorable: true,
          ...(this.checkpoints?.isKillRequested ? { killed: true } : {}),
        }),
      );
    }
  }

  private onProcessExit(exit: KernelExit): void {
    this.checkpoints?.onProcessExit();
    this.layers?.cgroup?.remove();
    const cell = this.running;
    this.running = undefined;
    this.completions.answerAll(() => ({ status: "invalid", indent: "" }));
    this.completers.answerAll(() => ({ start: 0, matches: [] }));
    if (cell) cell.settle(this.deadError("kernel died while the cell was running"));
    for (const listener of this.exitListeners) listener(exit);
    this.exitListeners.clear();
  }

  private deadError(message: string, extra: Record<string, unknown> = {}): EvalkitError {
    if (this.process) return this.process.deadError(message, extra);
    return new EvalkitError("KERNEL_DIED", `${message} (not started)`, { ...extra });
  }
}

export type { PythonKernelInfo, PythonKernelOptions } from "./python-kernel-options.js";
