// One JS kernel process, the JS runtime's connection: spawn in its own group, the ready handshake, frames on fd 3,
// capture pipes on fd 1/2, memory watch, exit.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { STATUS_MIME } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import type { KernelCgroup } from "../../runtime/sandbox-cgroup.js";
import { createRandomToken } from "../../text/random-tokens.js";
import type { RuntimeConnection } from "../client/runtime-description.js";
import type { KernelExit } from "../kernel.js";
import { climbKillLadder, killKernelNow, reapKernelTree, waitForChildExit } from "../process/kill-ladder.js";
import { watchMemory } from "../process/memory-watch.js";
import { signalGroup, spawnKernelProcess } from "../process/process-group.js";
import { hostPidInSandbox } from "../process/process-tree.js";
import { describeCgroupOom, unwrapSandboxExit } from "../process/sandbox-exit.js";
import { withStartDeadline } from "../process/start-deadline.js";
import { LineReader } from "../wire/line-reader.js";
import type { ReadyFrame } from "../wire/runner-frames.js";
import { buildJsKernelCommand } from "./js-command.js";
import { describeJsStartFailure } from "./js-exit.js";
import { type ChannelItem, OrderedChannels } from "./ordered-channels.js";

const STDERR_TAIL_CHARS = 8192;
/** After the process exits, how long its pipes may take to hand over their last bytes. */
const CLOSE_GRACE_MS = 500;
const HEAP_OOM = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;

export interface JsProcessConfig {
  node: string;
  cwd: string;
  env: Record<string, string>;
  maxHeapMb: number;
  /** False when node's own default heap limit is `maxHeapMb` and the flag is left out (heap-flag.ts). */
  heapFlag: boolean;
  memoryMb: number;
  launcher?: string[];
  /** The subreaper parent's command prefix (subreaper-parent.ts), when the kernel runs under one. */
  parent?: string[];
  /** The launcher is a bubblewrap sandbox: signals go to the sandbox's own process group (docs/sandbox.md). */
  sandboxed?: boolean;
  /** A launcher no signal crosses (`ssh`, `docker exec`); `prlimit` and the sandbox are not remote. */
  isRemote?: boolean;
  /** The seccomp program the spawn opens on bwrap's descriptor (sandboxed kernels). */
  seccompFile?: string;
  /** The sandbox's cgroup (its memory limit counts every page): named when it kills, removed at the end. */
  cgroup?: KernelCgroup;
  /** The CPU limit the launcher set (prlimit), named when the kernel dies of it. */
  cpuSeconds?: number;
  /** Every frame and stream piece, in the order the runner wrote them. */
  onItem: (item: ChannelItem) => void;
  /** Once, after the process is gone and its last output was delivered. */
  onExit: (exit: KernelExit) => void;
}

/** What the runner said in its `ready` frame. */
export interface JsReadyInfo {
  pid: number;
  node: string;
  cwd: string;
}

/** The node process of a JS kernel: the connection the kernel client talks to. */
export class JsKernelProcess implements RuntimeConnection {
  readonly child: ChildProcess;
  readonly ready: Promise<JsReadyInfo>;
  private readonly channel: Socket;
  private readonly reader = new LineReader();
  private readonly merger: OrderedChannels;
  private readonly tag = createRandomToken(8);
  private stderrText = "";
  private oomCause: string | undefined;
  private requested = false;
  private exited = false;
  private exitInfo: KernelExit | undefined;
  /** Resolves once the exit was reported (after the pipes' last bytes). */
  private readonly gone: Promise<void>;
  private markGone: () => void = () => undefined;
  private stopWatch: () => void = () => undefined;
  private sandboxInit: number | undefined;
  private settleReady: ((info: JsReadyInfo) => void) | undefined;

  constructor(private readonly config: JsProcessConfig) {
    const nonce = createRandomToken(8);
    const { command, args } = buildJsKernelCommand({
      node: config.node,
      maxHeapMb: config.maxHeapMb,
      heapFlag: config.heapFlag,
      syncNonce: nonce,
      statusMime: STATUS_MIME,
      ...(config.launcher ? { launcher: config.launcher } : {}),
      ...(config.parent ? { parent: config.parent, hostPid: process.pid } : {}),
    });
    this.merger = new OrderedChannels(nonce, (item) => this.deliver(item));
    this.child = spawnKernelProcess({
      command,
      args,
      cwd: config.cwd,
      env: config.env,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      tag: this.tag,
      seccompFile: config.seccompFile,
    });
    this.channel = this.child.stdio[3] as Socket;
    this.ready = new Promise<JsReadyInfo>((resolve, reject) => {
      this.settleReady = resolve;
      this.child.once("error", (err) =>
        reject(
          new EvalkitError("KERNEL_START_FAILED", `could not start ${command}: ${err.message}`, {}, err),
        ),
      );
      this.child.once("exit", (code, signal) =>
        reject(new Error(`the kernel exited during start-up (${signal ?? `exit code ${code}`})`)),
      );
    });
    this.ready.catch(() => undefined);
    this.gone = new Promise((resolve) => {
      this.markGone = resolve;
    });
    this.child.stdout?.on("data", (chunk: Buffer) => this.merger.stdout(chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => this.merger.stderr(chunk));
    this.channel.on("data", (chunk: Buffer) => this.onChannel(chunk));
    this.channel.on("error", () => undefined); // EPIPE once the runner is gone; the exit reports it
    this.child.on("exit", (code, signal) => void this.onProcessExit(code, signal));
    // A spawn that failed (ENOENT) has no process and may never emit "exit": without this, stop() waited forever.
    this.child.once("error", () => {
      if (this.child.pid === undefined) void this.onProcessExit(null, null);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return !this.exited;
  }

  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }

  get stderrTail(): string {
    return this.stderrText;
  }

  /** Waits for `ready`; a kernel without it in `timeoutMs` is stopped, and the error says why it did not start. */
  async handshake(timeoutMs: number): Promise<ReadyFrame> {
    try {
      const info = await withStartDeadline(
        this.ready,
        timeoutMs,
        () => new Error(`no ready frame within ${timeoutMs} ms`),
      );
      // The common `ready` shape: node names no Python version.
      return {
        type: "ready",
        pid: info.pid,
        python: "",
        implementation: "node",
        executable: info.node,
        protocol: 1,
        cwd: info.cwd,
      };
    } catch (err) {
      await this.stop(false);
      throw describeJsStartFailure(err, this.stderrText);
    }
  }

  send(frame: Record<string, unknown>): void {
    if (this.exited || this.channel.destroyed) return;
    this.channel.write(`${JSON.stringify(frame)}\n`);
  }

  /** SIGINT to the group: ends a synchronous loop at the top of a cell, and the cell's children like Ctrl-C. */
  signalInterrupt(): boolean {
    if (this.exited) return false;
    if (this.config.sandboxed) {
      // SIGINT to bwrap would end the sandbox; the group of its init (pid 1 inside, which ignores it) holds
      // the runner and what the cell started, like the group of an unsandboxed kernel.
      const init = this.sandboxInit ?? hostPidInSandbox(this.tag, 1);
      this.sandboxInit = init;
      if (init !== undefined) {
        try {
          process.kill(-init, "SIGINT");
          return true;
        } catch {
          // the sandbox is gone
        }
      }
      return false;
    }
    return !this.config.isRemote && signalGroup(this.child, "SIGINT");
  }

  /** Keep the host alive for this process (while a cell runs) or not (idle). */
  setRef(isRef: boolean): void {
    for (const handle of [this.child, this.channel, this.child.stdout, this.child.stderr]) {
      const target = handle as { ref?: () => void; unref?: () => void } | null;
      if (isRef) target?.ref?.();
      else target?.unref?.();
    }
  }

  /** Ends the process tree: exit frame first when `polite`, else straight to TERM, then KILL. */
  async stop(polite: boolean): Promise<KernelExit | undefined> {
    this.requested = true;
    if (this.exited) {
      await this.gone;
      return this.exitInfo;
    }
    await climbKillLadder(
      {
        child: this.child,
        ...(polite ? { requestExit: () => this.send({ type: "exit" }) } : {}),
        waitExit: (ms) => waitForChildExit(this.child, ms, () => this.exited),
      },
      polite ? {} : { termMs: 200 },
    );
    if (this.exited) await this.gone;
    return this.exitInfo;
  }

  private onChannel(chunk: Buffer): void {
    let lines: Buffer[];
    try {
      lines = this.reader.push(chunk);
    } catch {
      void this.stop(false);
      return;
    }
    for (const line of lines) {
      let frame: unknown;
      try {
        frame = JSON.parse(line.toString("utf8"));
      } catch {
        continue; // only the runner writes fd 3, and it writes JSON: nothing else can reach it
      }
      if (typeof frame === "object" && frame !== null)
        this.merger.frame(frame as Record<string, unknown>, line.length);
    }
  }

  private deliver(item: ChannelItem): void {
    if (item.kind === "text" && item.name === "stderr") {
      this.stderrText = (this.stderrText + item.text).slice(-STDERR_TAIL_CHARS);
    }
    if (item.kind === "frame" && item.frame.type === "ready") {
      const info = item.frame as unknown as JsReadyInfo;
      // In a sandbox the runner reports its pid inside the PID namespace; /proc here needs the host's.
      const watched = this.config.sandboxed ? hostPidInSandbox(this.tag, info.pid) : info.pid;
      if (watched !== undefined) {
        this.stopWatch = watchMemory(watched, this.config.memoryMb * 1024 * 1024, (rss) => {
          this.oomCause = `out of memory: the kernel's resident memory reached ${Math.round(rss / 1048576)} MB, over its memory limit ${this.config.memoryMb} MB`;
          void killKernelNow(this.child);
        });
      }
      this.settleReady?.(info);
      return;
    }
    this.config.onItem(item);
  }

  private async onProcessExit(rawCode: number | null, rawSignal: NodeJS.Signals | null): Promise<void> {
    if (this.exited) return;
    const { exitCode, signal } = this.config.sandboxed
      ? unwrapSandboxExit(rawCode, rawSignal)
      : { exitCode: rawCode, signal: rawSignal };
    this.exited = true;
    this.stopWatch();
    reapKernelTree(this.child, this.tag);
    // The pipes close once the group is gone; their last bytes (a print before process.exit) still count.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_GRACE_MS);
      this.child.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.merger.flush();
    const heapCause = HEAP_OOM.test(this.stderrText)
      ? `out of memory: the V8 heap limit of ${this.config.maxHeapMb} MB was reached`
      : undefined;
    const cgroup = this.config.cgroup;
    const cgroupCause = cgroup?.wasOomKilled() ? describeCgroupOom(cgroup) : undefined;
    cgroup?.remove();
    const cause = cgroupCause ?? this.oomCause ?? heapCause;
    const cpuCause =
      signal === "SIGXCPU" && this.config.cpuSeconds
        ? `CPU time limit ${this.config.cpuSeconds} s reached`
        : undefined;
    this.exitInfo = {
      exitCode,
      signal,
      requested: this.requested && cause === undefined && cpuCause === undefined,
      stderrTail: this.stderrText,
      ...(cause ? { cause, outOfMemory: true } : cpuCause ? { cause: cpuCause } : {}),
    };
    this.config.onExit(this.exitInfo);
    this.markGone();
  }
}
