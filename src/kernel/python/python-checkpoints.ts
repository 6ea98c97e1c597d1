// Time travel of one Python kernel (docs/checkpoints.md): checkpoint/restore/drop/info requests and their replies,
// and which runner is live (its pid changes at every restore; its death is reported by the root, not an exit).
import { constants } from "node:os";
import { EvalkitError } from "../../errors.js";
import { ReplyWaiters } from "../client/reply-waiters.js";
import type { CheckpointMemory, CheckpointTaken, KernelCheckpoints } from "../kernel.js";

type Reply = Record<string, unknown>;

/** No reply within this long: the runner is stuck (a fork of a huge state takes tens of milliseconds). */
export const CHECKPOINT_REPLY_TIMEOUT_MS = 60_000;

/** What the requests need from their kernel. */
export interface CheckpointChannel {
  send(frame: Record<string, unknown>): void;
  /** The kernel's process (the root) still runs. */
  isProcessAlive(): boolean;
  /** Runs `run` between cells (the kernel's cell queue). */
  between<T>(run: () => Promise<T>): Promise<T>;
}

/** How the live runner ended, as the root reported it. */
export interface RunnerExit {
  pid: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** The time-travel side of a PythonKernel started with checkpoints. */
export class PythonCheckpoints implements KernelCheckpoints {
  /** The runner that serves cells now. */
  livePid: number;
  /** Set when the live runner died and no restore has brought one back yet. */
  runnerExit: RunnerExit | undefined;
  private serial = 0;
  private readonly waiters = new ReplyWaiters<Reply>();

  constructor(
    private readonly channel: CheckpointChannel,
    livePid: number,
    readonly token: string | undefined = undefined,
  ) {
    this.livePid = livePid;
  }

  get isRestorable(): boolean {
    return this.runnerExit !== undefined && this.channel.isProcessAlive();
  }

  async take(name: string): Promise<CheckpointTaken> {
    const reply = await this.request("checkpoint", { name });
    const limits = Array.isArray(reply.limits) ? reply.limits.map(String) : [];
    return { pid: Number(reply.pid), limits };
  }

  async restore(name: string | null): Promise<void> {
    const reply = await this.request("restore", { name });
    this.livePid = Number(reply.livePid);
    this.runnerExit = undefined;
    this.isKillRequested = false;
  }

  async drop(name: string, options: { wait?: boolean } = {}): Promise<void> {
    try {
      await this.request("drop", options.wait === false ? { name, wait: false } : { name });
    } catch (err) {
      if (err instanceof EvalkitError && err.code === "CHECKPOINT_NOT_FOUND") return;
      throw err;
    }
  }

  async describe(names: string[]): Promise<CheckpointMemory[]> {
    const reply = await this.request("checkpoint_info", { names });
    const list = Array.isArray(reply.checkpoints) ? (reply.checkpoints as Reply[]) : [];
    return list.map((entry) => {
      const memory: CheckpointMemory = { name: typeof entry.name === "string" ? entry.name : null };
      if (typeof entry.pid === "number") memory.pid = entry.pid;
      if (typeof entry.privateBytes === "number") memory.privateBytes = entry.privateBytes;
      if (entry.missing === true) memory.missing = true;
      return memory;
    });
  }

  /**
   * SIGKILL to the live runner alone; resolves true once the root reported its end. Not in a sandbox, whose
   * PID namespace hides the runner's pid from the host.
   */
  async killInterpreter(): Promise<boolean> {
    if (this.cannotSignal || !this.channel.isProcessAlive() || this.runnerExit !== undefined) return false;
    this.isKillRequested = true;
    try {
      process.kill(this.livePid, "SIGKILL");
    } catch {
      return false;
    }
    const deadline = Date.now() + 3000;
    while (this.runnerExit === undefined && Date.now() < deadline && this.channel.isProcessAlive()) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.runnerExit !== undefined;
  }

  /** True once the host killed the runner itself (the death notice then says so). */
  isKillRequested = false;
  /** Set for sandboxed kernels: the host cannot signal a pid inside the sandbox. */
  cannotSignal = false;

  /** A `checkpoint_reply` frame. */
  onReply(frame: Reply): void {
    this.waiters.answer(String(frame.id), frame);
  }

  /** A `runner_exit` frame; true when it was the live runner (the running cell died with it). */
  onRunnerExit(frame: Reply): boolean {
    if (Number(frame.pid) !== this.livePid) return false;
    const number = typeof frame.signal === "number" ? frame.signal : undefined;
    const signal = number === undefined ? null : signalName(number);
    this.runnerExit = {
      pid: this.livePid,
      exitCode: typeof frame.exitCode === "number" ? frame.exitCode : null,
      signal,
    };
    return true;
  }

  /** The kernel's process is gone: no reply will come. */
  onProcessExit(): void {
    this.waiters.answerAll(() => ({ ok: false, gone: true, error: "the kernel exited" }));
  }

  private request(type: string, fields: Record<string, unknown>): Promise<Reply> {
    return this.channel.between(async () => {
      if (!this.channel.isProcessAlive()) {
        throw new EvalkitError("KERNEL_DIED", `cannot ${type}: the kernel is not running`);
      }
      if (this.runnerExit !== undefined && type === "checkpoint") {
        throw new EvalkitError(
          "KERNEL_DIED",
          "cannot take a checkpoint: the interpreter died and no restore has brought one back",
        );
      }
      const id = `ck${++this.serial}`;
      const reply = await new Promise<Reply>((resolve) => {
        const timer = setTimeout(() => {
          this.waiters.forget(id);
          resolve({ ok: false, error: `no reply within ${CHECKPOINT_REPLY_TIMEOUT_MS} ms` });
        }, CHECKPOINT_REPLY_TIMEOUT_MS);
        timer.unref();
        this.waiters.wait(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        this.channel.send({ type, id, ...fields });
      });
      if (reply.ok === true) return reply;
      const message = String(reply.error ?? "failed");
      if (reply.missing === true) {
        throw new EvalkitError("CHECKPOINT_NOT_FOUND", message, { name: fields.name ?? null });
      }
      throw new EvalkitError("CHECKPOINT_FAILED", `${type} failed: ${message}`, {
        name: fields.name ?? null,
      });
    });
  }
}

function signalName(number: number): NodeJS.Signals | null {
  for (const [name, value] of Object.entries(constants.signals)) {
    if (value === number) return name as NodeJS.Signals;
  }
  return null;
}
