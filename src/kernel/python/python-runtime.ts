// The Python runtime description: launch through the bootstrap with the runner bundle on stdin, NDJSON on
// stdin/stdout, SIGINT (or the interrupt frame where no signal reaches), and the hooks only Python has: the
// `ready` info and checkpoints (a live interpreter that can die while its kernel's process lives on).
import { EvalkitError } from "../../errors.js";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import { ensureHostGuard, registerHostKernel, unregisterHostKernel } from "../../runtime/host-guard.js";
import { type KernelLayers, prepareKernelLayers } from "../../runtime/sandbox-layers.js";
import { requireSandboxFeatures } from "../../runtime/sandbox-probe.js";
import type {
  CellRequest,
  ConnectionEvents,
  RuntimeConnection,
  RuntimeDescription,
} from "../client/runtime-description.js";
import type { KernelExit } from "../kernel.js";
import { type EarlyStderr, StdioRunnerProcess } from "../process/stdio-runner-process.js";
import type { ReadyFrame } from "../wire/runner-frames.js";
import { type CheckpointChannel, PythonCheckpoints } from "./python-checkpoints.js";
import { buildPythonLaunch, chooseKernelGuard } from "./python-command.js";
import { describeLimitDeath, describeLostConnection, describeSpawnError } from "./python-exit.js";
import {
  kernelInfoOf,
  PYTHON_INTERRUPT_GRACE_MS,
  PYTHON_START_TIMEOUT_MS,
  type PythonKernelInfo,
  type PythonKernelOptions,
} from "./python-kernel-options.js";
import { buildRunnerBundle } from "./runner-bundle.js";
import { warmSandboxCodeCache } from "./sandbox-code-cache.js";

/** What the Python runtime needs from its kernel client once the runner is ready. */
export interface PythonClientLink extends Omit<CheckpointChannel, "isProcessAlive"> {
  /** The live interpreter died (checkpoints): the running cell fails with `err`. */
  loseInterpreter(err: EvalkitError): void;
  connection(): RuntimeConnection | undefined;
}

/** Python over the one client (one per PythonKernel). */
export class PythonRuntime implements RuntimeDescription {
  readonly name = "python";
  readonly language = "py";
  readonly interrupt = "signal";
  readonly interruptGraceMs = PYTHON_INTERRUPT_GRACE_MS;
  readonly startTimeoutMs: number;
  readonly retainStreamBytes: number | undefined;
  readonly echoesNonce = true;
  readonly hasIsComplete = true;
  readonly restartsOnExecute = false;
  readonly countsCellsOnHost = false;
  readonly keepsStrayOutput = false;
  info: PythonKernelInfo | undefined;
  checkpoints: PythonCheckpoints | undefined;
  /** The sandbox's seccomp file and cgroup (removed when the process ends). */
  private layers: KernelLayers | undefined;
  private readonly trace: boolean;
  link: PythonClientLink | undefined;

  constructor(private readonly options: PythonKernelOptions) {
    this.startTimeoutMs = options.startTimeoutMs ?? PYTHON_START_TIMEOUT_MS;
    this.retainStreamBytes = options.retainStreamBytes;
    this.trace = options.trace ?? process.env.EVALKIT_PYTHON_IPC_TRACE === "1";
  }

  async launch(events: ConnectionEvents): Promise<StdioRunnerProcess> {
    const { options } = this;
    if (options.sandbox && options.launcher?.length) {
      throw new EvalkitError("INVALID_INPUT", "sandbox: cannot be combined with a launcher", {
        field: "sandbox",
      });
    }
    const bwrap = options.sandbox ? await requireSandboxFeatures() : undefined;
    // Compiled outside, shown read-only inside: the cache must exist before the sandbox's mounts are decided.
    if (bwrap) await warmSandboxCodeCache(options);
    const hostEnv = options.env ?? process.env;
    const layers = bwrap ? prepareKernelLayers(options.limits, resolveEvalkitHome(hostEnv)) : undefined;
    this.layers = layers;
    const cgroup = layers?.cgroup;
    try {
      const { command, args, env, seccompFile, runnerConfig } = buildPythonLaunch(options, bwrap, layers);
      const { launcher, limits } = options;
      // Local kernels: the host's one guard ends this one's tree if the host dies (python-command.ts decides).
      const isHostGuarded = chooseKernelGuard(options) === "host-guard";
      let guardedPid: number | undefined;
      return new StdioRunnerProcess(
        {
          name: "python",
          command,
          args,
          env,
          cwd: options.cwd,
          seccompFile,
          isSandboxed: options.sandbox !== undefined,
          hasLauncher: (launcher?.length ?? 0) > 0,
          // Built while the interpreter starts up.
          firstInput: () => buildRunnerBundle(runnerConfig),
          trace: this.trace,
          describeSpawnError: (err) => describeSpawnError(err, command, launcher),
          describeEarlyExit: (exitCode, stderr) => describeLauncherExit(command, launcher, exitCode, stderr),
          describeCause: (exit) =>
            describeLimitDeath(limits, exit.signal, cgroup) ??
            describeLostConnection(launcher, exit.exitCode),
          ...(isHostGuarded
            ? {
                onSpawn: (pid: number, tag: string) => {
                  guardedPid = pid;
                  registerHostKernel(pid, tag);
                },
                // Before the first cell, with the interpreter the runner reported. The environment has no kernel
                // tag: the tag scan at a kernel's end must spare the guard.
                onReady: (frame: ReadyFrame) => ensureHostGuard(frame.executable || options.python, env),
              }
            : {}),
          onGone: () => {
            cgroup?.remove();
            if (guardedPid !== undefined) unregisterHostKernel(guardedPid);
          },
        },
        events,
      );
    } catch (err) {
      // No process will exit to remove the cgroup: it goes now.
      cgroup?.remove();
      throw err;
    }
  }

  executeFrame(cell: CellRequest): Record<string, unknown> {
    const { options } = cell;
    const request: Record<string, unknown> = { id: cell.id, code: cell.code, nonce: cell.nonce };
    if (options.silent) request.silent = true;
    if (options.storeHistory === false) request.storeHistory = false;
    if (options.cwd) request.cwd = options.cwd;
    if (options.env) request.env = options.env;
    if (options.onInputRequest) request.allowStdin = true;
    return request;
  }

  onReady(ready: ReadyFrame): void {
    this.info = kernelInfoOf(ready);
    const link = this.link;
    if (!this.info.checkpoints || link === undefined) return;
    this.checkpoints = new PythonCheckpoints(
      {
        send: (frame) => link.send(frame),
        isProcessAlive: () => link.connection()?.isAlive === true,
        between: (run) => link.between(run),
      },
      this.info.pid,
      ready.checkpointToken,
    );
    this.checkpoints.cannotSignal = this.options.sandbox !== undefined;
  }

  /** Checkpoints keep a live interpreter apart from the kernel's process: it can be gone while the process lives. */
  isInterpreterAlive(): boolean {
    return this.checkpoints?.runnerExit === undefined;
  }

  onUnknownFrame(raw: Record<string, unknown>): boolean {
    const checkpoints = this.checkpoints;
    if (checkpoints === undefined) return false;
    if (raw.type === "checkpoint_reply") {
      checkpoints.onReply(raw);
      return true;
    }
    if (raw.type === "runner_exit") {
      if (checkpoints.onRunnerExit(raw)) this.link?.loseInterpreter(this.describeRunnerDeath(checkpoints));
      return true;
    }
    return false;
  }

  /** With checkpoints only the interpreter dies: the root reports it and the cell settles as killed. */
  async killInterpreter(): Promise<boolean> {
    return (await this.checkpoints?.killInterpreter()) === true;
  }

  onExit(_exit: KernelExit): void {
    this.checkpoints?.onProcessExit();
    this.layers?.cgroup?.remove();
  }

  /** The live runner died but the kernel's root and checkpoints live on (docs/checkpoints.md, crashes). */
  private describeRunnerDeath(checkpoints: PythonCheckpoints): EvalkitError {
    const exit = checkpoints.runnerExit;
    const how = exit?.signal ?? `exit code ${exit?.exitCode}`;
    return new EvalkitError("KERNEL_DIED", `kernel died while the cell was running (${how})`, {
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
      requested: false,
      restorable: true,
      ...(checkpoints.isKillRequested ? { killed: true } : {}),
    });
  }
}

/**
 * ssh could not reach the far side: one line with ssh's own (last) words, not a kernel crash to retry. Its stderr
 * may still be in flight when the exit is seen. Undefined for every other early exit.
 */
function describeLauncherExit(
  command: string,
  launcher: string[] | undefined,
  exitCode: number | null,
  stderr: EarlyStderr,
): Promise<EvalkitError> | undefined {
  const lost = describeLostConnection(launcher, exitCode);
  if (lost === undefined) return undefined;
  return stderr.closed().then(() => {
    const lines = stderr
      .tail()
      .split("\n")
      .filter((line) => line.trim() !== "");
    const said = lines.at(-1)?.trim() ?? lost;
    const message = `could not start the kernel through the launcher ${command}: ${said}`;
    return new EvalkitError("LAUNCHER_FAILED", message, { exitCode, stderrTail: stderr.tail(), command });
  });
}
