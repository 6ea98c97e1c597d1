// One runner process speaking NDJSON on stdin/stdout (Python's runner, and any protocol runner such as the Perl
// one): spawn in its own group, frames in from stdout, stderr's tail, the ready handshake, exit and the kill ladder.
import type { ChildProcess } from "node:child_process";
import { EvalkitError } from "../../errors.js";
import { createRandomToken } from "../../text/random-tokens.js";
import { summarizeStderr } from "../client/exit-classification.js";
import type { ConnectionEvents, RuntimeConnection } from "../client/runtime-description.js";
import type { KernelExit } from "../kernel.js";
import { LineReader } from "../wire/line-reader.js";
import { decodePlainStreamLine } from "../wire/plain-stream-line.js";
import {
  decodeRunnerFrame,
  encodeHostFrame,
  isPlainStreamLine,
  type ReadyFrame,
} from "../wire/runner-frames.js";
import { climbKillLadder, reapKernelTree, waitForChildExit } from "./kill-ladder.js";
import { signalGroup, spawnKernelProcess } from "./process-group.js";
import { unwrapSandboxExit } from "./sandbox-exit.js";
import { withStartDeadline } from "./start-deadline.js";

/** How much of the runner's stderr a kernel keeps for its death notice. */
export const STDERR_TAIL_BYTES = 8192;

/** What a process that exited during start-up wrote to stderr; its last bytes may still be in flight. */
export interface EarlyStderr {
  tail(): string;
  /** Resolves once stderr closed, or after half a second. */
  closed(): Promise<void>;
}

/** How to start a stdio runner and read its ends. */
export interface StdioRunnerConfig {
  /** Named in start-up errors ("python exited during start-up"). */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** The seccomp program the spawn opens on bwrap's descriptor (sandboxed kernels). */
  seccompFile?: string | undefined;
  /** The runner runs in a bubblewrap sandbox: its exit status is unwrapped, and no signal reaches inside. */
  isSandboxed?: boolean;
  /** The runner runs through a launcher (ssh, docker exec) no signal crosses. */
  hasLauncher?: boolean;
  /** Written to stdin before anything else, once the process exists (Python's runner bundle). */
  firstInput?: (() => Buffer) | undefined;
  /** Logs every frame (truncated) to stderr. */
  trace?: boolean;
  /** The error for a process that could not be spawned at all. */
  describeSpawnError(err: Error): EvalkitError;
  /** The error for a process that exited before `ready`, when the runtime knows better (a lost ssh link). */
  describeEarlyExit?(exitCode: number | null, stderr: EarlyStderr): Promise<EvalkitError> | undefined;
  /** Why the process ended when its runtime knows better than its exit status (a limit, a lost launcher). */
  describeCause?(exit: KernelExit): string | undefined;
  /** The process exists (its pid and the tag its tree inherits): the host guard learns of it. */
  onSpawn?(pid: number, tag: string): void;
  /** The runner said `ready` (the host guard starts with the interpreter it reported). */
  onReady?(frame: ReadyFrame): void;
  /** Once the process is gone and its stragglers were killed (the sandbox's cgroup goes, the guard forgets it). */
  onGone?(): void;
}

/** The spawned runner and its channel. */
export class StdioRunnerProcess implements RuntimeConnection {
  readonly child: ChildProcess;
  /** Inherited by everything the kernel starts: how its strays are found once it is gone (process-tree.ts). */
  private readonly tag = createRandomToken(8);
  private readonly reader = new LineReader();
  private tail = "";
  private exitInfo: KernelExit | undefined;
  private isShutdownRequested = false;
  private isReady = false;
  private onReady: ((frame: ReadyFrame) => void) | undefined;

  constructor(
    private readonly config: StdioRunnerConfig,
    private readonly events: ConnectionEvents,
  ) {
    this.child = spawnKernelProcess({
      command: config.command,
      args: config.args,
      cwd: config.cwd,
      env: config.env,
      stdio: ["pipe", "pipe", "pipe"],
      tag: this.tag,
      seccompFile: config.seccompFile,
    });
    if (this.child.pid !== undefined) config.onSpawn?.(this.child.pid, this.tag);
    this.child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk));
    this.child.stdin?.on("error", () => {
      // EPIPE when the runner is gone; the exit handler reports it.
    });
    this.child.on("exit", (exitCode, signal) => this.onExitEvent(exitCode, signal));
    // A spawn that failed (ENOENT) has no process and may never emit "exit".
    this.child.once("error", () => {
      if (this.child.pid === undefined) this.onExitEvent(null, null);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.exitInfo === undefined && !this.isShutdownRequested;
  }

  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }

  get stderrTail(): string {
    return this.tail;
  }

  /** Sends the first input and waits for `ready`; start-up failures come back classified. */
  async handshake(timeoutMs: number): Promise<ReadyFrame> {
    const { command, name } = this.config;
    const ready = new Promise<ReadyFrame>((resolve, reject) => {
      this.onReady = resolve;
      this.child.once("error", (err) => reject(this.config.describeSpawnError(err)));
      this.child.once("exit", (exitCode, signal) => {
        const known = this.config.describeEarlyExit?.(exitCode, {
          tail: () => this.tail,
          closed: () =>
            new Promise((done) => {
              const timer = setTimeout(done, 500);
              this.child.stderr?.once("close", () => {
                clearTimeout(timer);
                done();
              });
            }),
        });
        if (known !== undefined) {
          void known.then(reject);
          return;
        }
        const how = signal ?? `exit code ${exitCode}`;
        const message = `${name} exited during start-up (${how})${summarizeStderr(this.tail)}`;
        reject(
          new EvalkitError("KERNEL_START_FAILED", message, {
            exitCode,
            signal,
            stderrTail: this.tail,
            command,
          }),
        );
      });
    });
    if (this.config.firstInput) this.child.stdin?.write(this.config.firstInput());
    try {
      const frame = await withStartDeadline(ready, timeoutMs, () => {
        const message = `${name} did not answer within ${timeoutMs} ms${summarizeStderr(this.tail)}`;
        return new EvalkitError("KERNEL_START_FAILED", message, { stderrTail: this.tail, command });
      });
      this.isReady = true;
      this.config.onReady?.(frame);
      return frame;
    } finally {
      this.onReady = undefined;
    }
  }

  send(frame: Record<string, unknown>): void {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return;
    const line = encodeHostFrame(frame);
    if (this.config.trace) process.stderr.write(`evalkit host >> ${line.slice(0, 300).trimEnd()}\n`);
    stdin.write(line);
  }

  /** SIGINT to the group; none crosses a launcher or reaches into a sandbox (it would end bwrap), nor on Windows. */
  signalInterrupt(): boolean {
    if (process.platform === "win32" || this.config.hasLauncher || this.config.isSandboxed) return false;
    return signalGroup(this.child, "SIGINT");
  }

  /**
   * A stdio runner holds the host open while it lives, as the Python kernel always has: its owner ends it with
   * shutdown(), and hosts that wait on nothing else (a script between two cells) are not cut short.
   */
  setRef(_isRef: boolean): void {}

  /** exit request (when `polite`) → SIGTERM → SIGKILL, each to the whole process group (kill-ladder.ts). */
  async stop(polite: boolean): Promise<KernelExit | undefined> {
    this.isShutdownRequested = true;
    if (this.exitInfo === undefined && this.child.pid !== undefined) {
      await climbKillLadder({
        child: this.child,
        ...(polite
          ? {
              requestExit: () => {
                this.send({ type: "exit" });
                this.child.stdin?.end();
              },
            }
          : {}),
        waitExit: (ms) => waitForChildExit(this.child, ms, () => this.exitInfo !== undefined),
      });
    }
    // Stragglers were killed when the exit was seen. Never signal the group later: with a small pid_max the
    // runner's pid (and so the group id) can belong to someone else by then.
    return this.exitInfo;
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
      if (this.config.trace) process.stderr.write(`evalkit host << ${line.toString("utf8", 0, 300)}\n`);
      // The common stream frame, straight from its bytes (it may rewrite them: nobody reads the line after).
      const plain = decodePlainStreamLine(line);
      if (plain !== undefined) {
        this.events.onFrame(plain, true);
        continue;
      }
      const text = line.toString("utf8");
      let frame: ReturnType<typeof decodeRunnerFrame>;
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
    if (this.config.trace) process.stderr.write(`evalkit runner stderr: ${text}`);
    this.appendStderr(text);
  }

  private appendStderr(text: string): void {
    this.tail = (this.tail + text).slice(-STDERR_TAIL_BYTES);
  }

  private onExitEvent(rawCode: number | null, rawSignal: NodeJS.Signals | null): void {
    if (this.exitInfo !== undefined) return;
    const { exitCode, signal } = this.config.isSandboxed
      ? unwrapSandboxExit(rawCode, rawSignal)
      : { exitCode: rawCode, signal: rawSignal };
    const exit: KernelExit = { exitCode, signal, requested: this.isShutdownRequested, stderrTail: this.tail };
    const cause = this.isShutdownRequested ? undefined : this.config.describeCause?.(exit);
    if (cause !== undefined) exit.cause = cause;
    this.exitInfo = exit;
    // Children the cell left in the group (the runner was killed before it could take them along), and
    // those that left the group (own session, orphaned background jobs), found by the tag they inherited.
    reapKernelTree(this.child, this.tag);
    this.config.onGone?.();
    this.events.onExit(exit);
  }
}
