// Public shapes of the session layer: manager options, call and cell requests, and a cell's outcome.
import type { CellLanguage, CellStatus, CellUsage } from "../contracts/cell-result.js";
import type { CellErrorInfo, KernelOutput } from "../contracts/outputs.js";
import type { JupyterSettings } from "../kernel/jupyter/jupyter-rest.js";
import type { JupyterServer } from "../kernel/jupyter/jupyter-server.js";
import type { Kernel, KernelExit } from "../kernel/kernel.js";
import type { RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import type { ResolvedSandbox, ResourceLimits, SandboxOptions } from "../runtime/sandbox-types.js";
import type { HostBridgeHandlers } from "./bridge-handlers.js";
import type { CellTiming } from "./cell-timing.js";
import type { CheckpointOptions } from "./checkpoint-book.js";

/** `session`: kernels retained per key; `per-call`: a fresh kernel per call, shut down after it. */
export type KernelMode = "session" | "per-call";

/**
 * How one cell ended, as the session layer saw it: the one status vocabulary (`CellStatus`) less the two only the
 * tool can say (`skipped` after an earlier failure, `running` for a job's open cell).
 */
export type SessionCellStatus = Exclude<CellStatus, "skipped" | "running">;

/** Everything a kernel factory needs to build one kernel. */
export interface KernelSpec {
  language: CellLanguage;
  /** Real path of the working directory the kernel starts in. */
  cwd: string;
  sessionId: string;
  /** Interpreter executable for Python kernels (`undefined` for JS). */
  interpreter: string | undefined;
  /** The child's complete environment (already filtered). */
  env: Record<string, string>;
  /** Command prefix the interpreter runs through (`docker exec -i box`...). */
  launcher: string[] | undefined;
  /** How long an interrupted cell may take to end before the kernel is killed. */
  interruptGraceMs: number;
  /** Run the kernel in this sandbox (docs/sandbox.md). */
  sandbox?: ResolvedSandbox | undefined;
  /** Resource limits of the kernel process. */
  limits?: ResourceLimits | undefined;
  /** Start Python kernels able to take checkpoints (docs/checkpoints.md). */
  checkpoints?: boolean | undefined;
  /** Start the Python kernel as a fork of this checkpoint of another kernel (docs/checkpoints.md, Fork). */
  forkOf?: { token: string; name: string } | undefined;
  /** Set when the kernel runs on a Jupyter server: the server and the kernelspec to start there. */
  jupyter?: { server: JupyterServer; kernelName: string } | undefined;
  /** Set when the language is a protocol runtime's (docs/runtimes.md): the runtime to start. */
  runtime?: RuntimeSpec | undefined;
}

/** Builds a kernel; the manager calls `start()` on it. */
export type KernelFactory = (spec: KernelSpec) => Kernel;

/** Which interpreter serves a working directory, and the environment its child gets. */
export interface ResolvedInterpreter {
  executable: string;
  env: Record<string, string>;
  /** How the interpreter was found (for banners and `doctor`), when the resolver knows. */
  reason?: string;
}

/** Picks the interpreter (and child environment) for a working directory. */
export type InterpreterResolver = (cwd: string) => Promise<ResolvedInterpreter>;

/** What a manager's kernels run with: the settings a tool sharing the manager must agree with. */
export interface SessionManagerSettings {
  /** The sandbox every kernel runs in, or undefined for none. */
  sandbox: ResolvedSandbox | undefined;
  /** Resource limits of every kernel, or undefined for none. */
  limits: ResourceLimits | undefined;
  /** The explicit Python interpreter, or undefined (the runtime's resolution). */
  python: string | undefined;
  /** True when the manager picks interpreters with its own `resolveInterpreter` or runs them through a launcher. */
  hasCustomInterpreter: boolean;
  /** The protocol runtimes the manager runs besides Python and JS (docs/runtimes.md). */
  runtimes: readonly RuntimeSpec[];
}

export interface SessionManagerOptions {
  /** Default `session`. */
  mode?: KernelMode;
  /** Builds kernels; defaults to PythonKernel / JsKernel. */
  createKernel?: KernelFactory;
  /** Explicit Python interpreter (skips the search; the default resolver still builds the environment). */
  python?: string;
  /** Picks the Python interpreter per cwd; defaults to the runtime's resolution (venvs, PATH...). */
  resolveInterpreter?: InterpreterResolver;
  /** How long an interpreter resolution is reused for a cwd (default 5000 ms; 0 resolves every cell). */
  resolveCacheMs?: number;
  /** Extra environment entries every kernel gets (on top of the filtered parent environment). */
  env?: Record<string, string>;
  /** Command prefix for Python kernels. */
  launcher?: string[];
  /**
   * Run every kernel in a bubblewrap sandbox (not with a launcher); see docs/sandbox.md. The same forms as the eval
   * tool's option: `true`, or `{ network?, writable? }` (writable paths resolved against the process's cwd).
   */
  sandbox?: boolean | SandboxOptions;
  /** Resource limits of every kernel. */
  limits?: ResourceLimits;
  /** Idle retained kernels are shut down after this long (default 5 minutes). */
  idleEvictMs?: number;
  /** At most this many retained kernels (default 4); least recently used idle ones go first. */
  maxKernels?: number;
  /** How often idle kernels are checked for a silent death (default 30 s). */
  heartbeatMs?: number;
  /** Grace between an interrupt and killing the kernel (default 5000 ms). */
  interruptGraceMs?: number;
  /** Default per-cell timeout in seconds (default 30). */
  defaultTimeoutSec?: number;
  /** Ceiling for per-cell timeouts in seconds (default 3600). */
  maxTimeoutSec?: number;
  /** Consecutive failed kernel starts within one call before KERNEL_CRASH_LOOP (default 2). */
  crashLoopThreshold?: number;
  /** Handlers for calls from cells into the host (`agent()`, `completion()`, `tool.x()`). */
  bridge?: HostBridgeHandlers;
  /** Python kernels that can take checkpoints, undo and survive a crash of the interpreter (docs/checkpoints.md). */
  checkpoints?: CheckpointOptions;
  /**
   * Run cells on this Jupyter server's kernels (docs/jupyter.md): every language but `js` (which stays local)
   * goes to the kernelspec of that language; `dispose()`, eviction and resets delete the kernels started there.
   */
  jupyter?: JupyterSettings;
  /**
   * More languages, each a protocol runner described with `defineRuntime` (docs/runtimes.md): a cell whose
   * language names one runs in a kernel of that runner.
   */
  runtimes?: RuntimeSpec[];
}

/** Opens a call: a sequence of cells that run back to back without other calls interleaving. */
export interface SessionCallRequest {
  /** Session id; calls with the same id, cwd and interpreter share kernels. Default `"default"`. */
  sessionId?: string;
  /** Working directory (must exist). Default `process.cwd()`. */
  cwd?: string;
  /** Aborting cancels whatever cell is running or waiting. */
  signal?: AbortSignal;
  /** Overrides the manager's bridge handlers for this call. */
  bridge?: HostBridgeHandlers;
  /** Answers `input()`; without it `input()` fails at once in the cell. */
  onInputRequest?: (prompt: string, password: boolean) => Promise<string>;
}

/** One cell of a call. */
export interface SessionCellRequest {
  language?: CellLanguage;
  code: string;
  /** Seconds; clamped to 1..maxTimeoutSec (cell-timing.ts); default from the manager (30). */
  timeoutSec?: number;
  /** Replace this language's kernel for the key with a fresh one before the cell runs. */
  reset?: boolean;
  /** Aborting cancels this cell only. */
  signal?: AbortSignal;
  /** Each output as it arrives, in order. */
  onOutput?: (output: KernelOutput) => void;
  /**
   * Keep the outputs for `outcome.outputs` (default true). False when `onOutput` keeps them: `outcome.outputs` is
   * then empty, and no layer below holds a second copy of a cell's output.
   */
  retainOutputs?: boolean;
}

/**
 * A cell request already validated and timed at an entry point (the eval tool's parse): `SessionCall.runResolved`
 * takes it as it is, with no second validation or clamp.
 */
export interface ResolvedCellRequest extends Omit<SessionCellRequest, "timeoutSec"> {
  timing: CellTiming;
}

/** A one-cell call, for `SessionManager.run`. */
export interface SessionRunRequest extends SessionCallRequest, SessionCellRequest {}

/** How a cell ended. */
export interface SessionCellOutcome {
  status: SessionCellStatus;
  executionCount: number | null;
  outputs: KernelOutput[];
  error?: CellErrorInfo;
  durationMs: number;
  /** Human-readable facts about the kernel: timed out, killed, restarted, state lost. */
  notices: string[];
  /** Set when the kernel process ended during the cell. */
  exit?: KernelExit;
  /** What the kernel used during the cell (when it reported it). */
  usage?: CellUsage;
}
