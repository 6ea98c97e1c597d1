// One Python kernel process: spawn in its own group, frames in from stdout, stderr tail, the ready handshake,
// exit classification and the end through the shared kill ladder. PythonKernel drives cells over it.
import { type ChildProcess, spawn } from "node:child_process";
import { EvalkitError } from "../../errors.js";
import { ensureHostGuard, registerHostKernel, unregisterHostKernel } from "../../runtime/host-guard.js";
import { openSeccompStdio } from "../../runtime/sandbox-argv.js";
import type { KernelCgroup } from "../../runtime/sandbox-cgroup.js";
import { createRandomToken } from "../../text/random-tokens.js";
import type { KernelExit } from "../kernel.js";
import { climbKillLadder, reapKernelTree, waitForChildExit } from "../kill-ladder.js";
import { LineReader } from "../line-reader.js";
import { decodePlainStreamLine } from "../plain-stream-line.js";
import { KERNEL_TAG_NAME } from "../process-tree.js";
import {
  decodeRunnerFrame,
  encodeHostFrame,
  isPlainStreamLine,
  type ReadyFrame,
  type RunnerFrame,
} from "../runner-frames.js";
import { unwrapSandboxExit } from "../sandbox-exit.js";
import { withStartDeadline } from "../start-deadline.js";
import { chooseKernelGuard } from "./python-command.js";
import {
  describeLimitDeath,
  describeLostConnection,
  describeSpawnError,
  STDERR_TAIL_BYTES,
  summarizeStderr,
} from "./python-exit.js";
import type { PythonKernelOptions } from "./python-kernel-options.js";

/** Every runner frame but the handshake's `ready`, which the process answers itself. */
export type CellFrame = Exclude<RunnerFrame, ReadyFrame>;

/** What the process tells its kernel. */
export interface PythonProcessEvents {
  /** A decoded runner frame other than `ready`; `isPlain`: a stream line that needs no unescaping (live hint). */
  onFrame(frame: CellFrame, isPlain: boolean): void;
  /** The runner broke the protocol after `ready` (an over-long or undecodable line). */
  onProtocolError(err: EvalkitError): void;
  /** The process is gone; stragglers of its tree were already killed. */
  onExit(exit: KernelExit): void;
}

/** The spawned runner and its channel. */
export class PythonKernelProcess {
  readonly child: ChildProcess;
  /** Inherited by everything the kernel starts: how its strays are found once it is gone (process-tree.ts). */
  private readonly tag = createRandomToken(8);
  private readonly reader = new LineReader();
  private stderrTail = "";
  private exitInfo: KernelExit | undefined;
  private isShutdownRequested = false;
  private isReady = false;
  private onReady: ((frame: ReadyFrame) => void) | undefined;

  constructor(
    private readonly options: PythonKernelOptions & { cgroup?: KernelCgroup },
    private readonly command: {
      command: string;
      args: string[];
      env: Record<string, string>;
      seccompFile?: string;
    },
    private readonly events: PythonProcessEvents,
    private readonly trace: boolean,
  ) {
    const env = { ...command.env, [KERNEL_TAG_NAME]: this.tag };
    const seccomp = openSeccompStdio(["pipe", "pipe", "pipe"], command.seccompFile);
    try {
      this.child = spawn(command.command, command.args, {
        cwd: options.cwd,
        env,
        stdio: seccomp.stdio,
        detached: process.platform !== "win32",
        windowsHide: true,
      });
    } finally {
      seccomp.close();
    }
    // Local kernels: the host's one guard ends this one's tree if the host dies (python-command.ts decides).
    if (this.child.pid !== undefined && chooseKernelGuard(options) === "host-guard") {
      registerHostKernel(this.child.pid, this.tag);
    }
    this.child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk));
    this.child.stdin?.on("error", () => {
      // EPIPE when the runner is gone; the exit handler reports it.
    });
    this.child.on("exit", (exitCode, signal) => this.onExitEvent(exitCode, signal));
  }

  get isAlive(): boolean {
    return this.exitInfo === undefined && !this.isShutdownRequested;
  }

  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }

  /** Sends the runner bundle and waits for `ready`; start-up failures come back classified. */
  async handshake(bundle: Buffer, timeoutMs: number): Promise<ReadyFrame> {
    const { command } = this.command;
    const ready = new Promise<ReadyFrame>((resolve, reject) => {
      this.onReady = resolve;
      this.child.once("error", (err) => reject(describeSpawnError(err, command, this.options.launcher)));
      this.child.once("exit", (exitCode, signal) => {
        const lost = describeLostConnection(this.options.launcher, exitCode);
        if (lost === undefined) {
          const how = signal ?? `exit code ${exitCode}`;
          const message = `python exited during start-up (${how})${this.stderrSummary()}`;
          const details = { exitCode, signal, stderrTail: this.stderrTail, command };
          reject(new EvalkitError("KERNEL_START_FAILED", message, details));
          return;
        }
        // ssh could not reach the far side: one line with ssh's own (last) words, not a kernel crash to retry.
        // Its stderr may still be in flight when the exit is seen.
        const fail = () => {
          const lines = this.stderrTail.split("\n").filter((line) => line.trim() !== "");
          const said = lines.at(-1)?.trim() ?? lost;
          const message = `could not start the kernel through the launcher ${command}: ${said}`;
          reject(
            new EvalkitError("LAUNCHER_FAILED", message, { exitCode, stderrTail: this.stderrTail, command }),
          );
        };
        const timer = setTimeout(fail, 500);
        this.child.stderr?.once("close", () => {
          clearTimeout(timer);
          fail();
        });
      });
    });
    this.child.stdin?.write(bundle);
    try {
      const frame = await withStartDeadline(ready, timeoutMs, () => {
        const message = `python did not answer within ${timeoutMs} ms${this.stderrSummary()}`;
        return new EvalkitError("KERNEL_START_FAILED", message, { stderrTail: this.stderrTail, command });
      });
      this.isReady = true;
      if (chooseKernelGuard(this.options) === "host-guard") {
        // Before the first cell, with the interpreter the runner reported. The environment has no kernel tag:
        // the tag scan at a kernel's end must spare the guard.
        ensureHostGuard(frame.executable || this.options.python, this.command.env);
      }
      return frame;
    } finally {
      this.onReady = undefined;
    }
  }

  send(frame: Record<string, unknown>): void {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return;
    const line = encodeHostFrame(frame);
    if (this.trace) process.stderr.write(`evalkit host >> ${line.slice(0, 300).trimEnd()}\n`);
    stdin.write(line);
  }

  /** exit request → SIGTERM → SIGKILL, each to the whole process group, with short graces (kill-ladder.ts). */
  async shutdown(): Promise<KernelExit | undefined> {
    this.isShutdownRequested = true;
    if (this.exitInfo === undefined && this.child.pid !== undefined) {
      await climbKillLadder({
        child: this.child,
        requestExit: () => {
          this.send({ type: "exit" });
          this.child.stdin?.end();
        },
        waitExit: (ms) => waitForChildExit(this.child, ms, () => this.exitInfo !== undefined),
      });
    }
    // Stragglers were killed when the exit was seen. Never signal the group later: with a small pid_max the
    // runner's pid (and so the group id) can belong to someone else by then.
    return this.exitInfo;
  }

  /** What a death notice carries: exit code or signal, whether it was asked for, the runner's last words. */
  exitDetails(): Record<string, unknown> {
    return {
      exitCode: this.exitInfo?.exitCode ?? null,
      signal: this.exitInfo?.signal ?? null,
      requested: this.exitInfo?.requested ?? this.isShutdownRequested,
      stderrTail: this.stderrTail,
      ...(this.exitInfo?.cause ? { cause: this.exitInfo.cause } : {}),
    };
  }

  /** `KERNEL_DIED` with how the process ended and its stderr. */
  deadError(message: string, extra: Record<string, unknown> = {}): EvalkitError {
    const exit = this.exitInfo;
    const cause = exit?.signal ?? (exit ? `exit code ${exit.exitCode}` : "not started");
    return new EvalkitError("KERNEL_DIED", `${message} (${cause})${this.stderrSummary()}`, {
      ...this.exitDetails(),
      ...extra,
    });
  }

  private stderrSummary(): string {
    return summarizeStderr(this.stderrTail);
  }

  private onStdout(chunk: Buffer): void {
    let lines: Buffer[];
    try {
      lines = this.reader.push(chunk);
    } catch (err) {
      this.events.onProtocolError(err as EvalkitError);
      return;
    }
    for (const line of lines) {
      if (this.trace) process.stderr.write(`evalkit host << ${line.toString("utf8", 0, 300)}\n`);
      // The common stream frame, straight from its bytes (it may rewrite them: nobody reads the line after).
      const plain = decodePlainStreamLine(line);
      if (plain !== undefined) {
        this.events.onFrame(plain, true);
        continue;
      }
      const text = line.toString("utf8");
      let frame: RunnerFrame;
      try {
        frame = decodeRunnerFrame(text);
      } catch (err) {
        if (!this.isReady) {
          // Before `ready`, something (a sitecustomize, a launcher banner) printed to stdout: keep it for diagnostics.
          this.appendStderr(`[stdout before ready] ${text}\n`);
          continue;
        }
        this.events.onProtocolError(err as EvalkitError);
        return;
      }
      if (frame.type === "ready") this.onReady?.(frame);
      else
        this.events.onFrame(
          frame,
          (frame.type === "stdout" || frame.type === "stderr") && isPlainStreamLine(line),
        );
    }
  }

  private onStderr(chunk: Buffer): void {
    const text = chunk.toString("utf8");
    if (this.trace) process.stderr.write(`evalkit runner stderr: ${text}`);
    this.appendStderr(text);
  }

  private appendStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
  }

  private onExitEvent(rawCode: number | null, rawSignal: NodeJS.Signals | null): void {
    const { exitCode, signal } = this.options.sandbox
      ? unwrapSandboxExit(rawCode, rawSignal)
      : { exitCode: rawCode, signal: rawSignal };
    const exit: KernelExit = {
      exitCode,
      signal,
      requested: this.isShutdownRequested,
      stderrTail: this.stderrTail,
    };
    const cause = this.isShutdownRequested
      ? undefined
      : (describeLimitDeath(this.options.limits, signal, this.options.cgroup) ??
        describeLostConnection(this.options.launcher, exitCode));
    if (cause !== undefined) exit.cause = cause;
    this.exitInfo = exit;
    // Children the cell left in the group (the runner was killed before it could take them along), and
    // those that left the group (own session, orphaned background jobs), found by the tag they inherited.
    reapKernelTree(this.child, this.tag);
    if (this.child.pid !== undefined) unregisterHostKernel(this.child.pid);
    this.events.onExit(exit);
  }
}
