// PythonKernel's constructor options, their defaults, and what the runner reports about itself at start-up.
import type { ResolvedSandbox, ResourceLimits } from "../../runtime/sandbox-types.js";
import type { ReadyFrame } from "../wire/runner-frames.js";

/** {@link PythonKernelOptions.startTimeoutMs} when none is given. */
export const PYTHON_START_TIMEOUT_MS = 15_000;
/** {@link PythonKernelOptions.interruptGraceMs} when none is given. */
export const PYTHON_INTERRUPT_GRACE_MS = 5000;

/** Options for {@link PythonKernel}. */
export interface PythonKernelOptions {
  /** Interpreter to run (path or command name). */
  python: string;
  /** Extra interpreter arguments placed before `-u -c`. */
  args?: string[];
  /** Command prefix the interpreter runs through, e.g. `["docker", "exec", "-i", "box"]`. */
  launcher?: string[];
  /** Quote the interpreter command for a remote shell (default: automatic for `ssh`). */
  launcherShellQuote?: boolean;
  cwd?: string;
  /** The child's complete environment (already filtered). Defaults to the parent's. */
  env?: Record<string, string>;
  /** Handshake deadline (default 15 s). */
  startTimeoutMs?: number;
  /** After an interrupt with no end of the cell, kill the kernel after this long (default 5000 ms). */
  interruptGraceMs?: number;
  /** Log every frame (truncated) to stderr; defaults to EVALKIT_PYTHON_IPC_TRACE=1. */
  trace?: boolean;
  /** Stream text kept per cell in `outcome.outputs` (default 1 MiB); everything still reaches `onOutput`. */
  retainStreamBytes?: number;
  /**
   * Where the runner keeps its compiled modules between starts (saves compiling ~20 files at every start).
   * Default `$EVALKIT_HOME/cache/runner-code` without a launcher, none with one; `false` turns it off.
   */
  codeCacheDir?: string | false;
  /**
   * Run the interpreter in a bubblewrap sandbox (docs/sandbox.md). `start()` fails with SANDBOX_UNAVAILABLE
   * when none can be had. Not combined with a launcher.
   */
  sandbox?: ResolvedSandbox;
  /** Resource limits the runner sets on itself before anything else (inherited by what the cells start). */
  limits?: ResourceLimits;
  /**
   * Start the runner so it can take checkpoints (docs/checkpoints.md): the started process stays as the root and
   * a fork of it runs the cells. Linux only and not through a launcher (ignored there: `checkpoints` is then absent).
   */
  checkpoints?: boolean;
  /**
   * Start as a fork of another kernel's checkpoint (docs/checkpoints.md, Fork): `token` from that kernel, `name` of
   * the checkpoint. The process started is a small relay that hands its stdin/stdout to a copy of the checkpoint.
   */
  forkOf?: { token: string; name: string };
}

/** What the runner reported about itself at start-up. */
export interface PythonKernelInfo {
  pid: number;
  pythonVersion: string;
  implementation: string;
  executable: string;
  protocol: number;
  cwd: string;
  /** The runner was started with checkpoints. */
  checkpoints: boolean;
}

/** The info of the runner's `ready` frame. */
export function kernelInfoOf(frame: ReadyFrame): PythonKernelInfo {
  return {
    pid: frame.pid,
    pythonVersion: frame.python,
    implementation: frame.implementation,
    executable: frame.executable,
    protocol: frame.protocol,
    cwd: frame.cwd,
    checkpoints: frame.checkpoints === true,
  };
}
