// The contract every kernel (Python, JS, protocol runtimes, Jupyter) fulfils, so sessions and the tool treat them alike.
import type { CellLanguage, CellUsage } from "../contracts/cell-result.js";
import type { CellErrorInfo, KernelOutput } from "../contracts/outputs.js";

/** A call from cell code into the host (`agent()`, `completion()`, `tool.x()`...). */
export interface BridgeCall {
  method: string;
  params: Record<string, unknown>;
  /** Fires when the cell is interrupted, times out, ends or the kernel dies. */
  signal: AbortSignal;
}

/** Answers bridge calls; a thrown error becomes an exception in the cell. */
export type BridgeCallHandler = (call: BridgeCall) => Promise<unknown>;

/** Per-execution options. */
export interface ExecuteOptions {
  /** Each output as it arrives, in order. */
  onOutput?: (output: KernelOutput) => void;
  /** Aborting interrupts the cell (SIGINT / protocol interrupt). */
  signal?: AbortSignal;
  /** Bridge calls made by the cell. Without it, every call fails in the cell with a clear error. */
  onCall?: BridgeCallHandler;
  /** Answers `input()`; without it `input()` fails at once in the cell. */
  onInputRequest?: (prompt: string, password: boolean) => Promise<string>;
  /** Working directory to switch to before the cell runs. */
  cwd?: string;
  /** Environment entries to set before the cell runs. */
  env?: Record<string, string>;
  /** No result frame, no history, no execution count. */
  silent?: boolean;
  /** Count the cell in the execution counter and history (default true). */
  storeHistory?: boolean;
  /**
   * Milliseconds between the interrupt an aborted `signal` sends and the kill of a cell that did not stop. The
   * kernel client is the one place that escalates; the caller resolves the value once (default: the runtime's).
   */
  interruptGraceMs?: number;
  /**
   * Keep the cell's outputs in `ExecuteOutcome.outputs` (default true). A caller that keeps every output it
   * receives through `onOutput` passes false, so a cell's output is retained once.
   */
  retainOutputs?: boolean;
}

/** How a cell that reached its end finished. A kernel that dies instead makes `execute` reject. */
export interface ExecuteOutcome {
  status: "ok" | "error";
  /** True when the cell ended because it was interrupted. */
  cancelled: boolean;
  executionCount: number | null;
  outputs: KernelOutput[];
  error?: CellErrorInfo;
  durationMs: number;
  /** True when stream text past the retention limit was passed to `onOutput` but not kept in `outputs`. */
  outputsTruncated?: boolean;
  /** CPU time and peak memory of the kernel during the cell, when the kernel measures them. */
  usage?: CellUsage;
}

/** Why a kernel process ended. */
export interface KernelExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the host asked for the exit (shutdown, kill ladder). */
  requested: boolean;
  /** Last lines the process wrote to its real stderr (runner diagnostics, interpreter crashes). */
  stderrTail: string;
  /** Why the kernel ended when the kernel knows better than its exit status (`out of memory: …`). */
  cause?: string;
  /** True when a memory limit ended the kernel (its heap limit or its resident-memory limit). */
  outOfMemory?: boolean;
}

/** A checkpoint the kernel took: what a restore of it will not carry (docs/checkpoints.md). */
export interface CheckpointTaken {
  /** Process id of the parked copy (inside the sandbox's PID namespace when sandboxed). */
  pid: number;
  /** Things running at the checkpoint that a restore cannot bring back (threads, children, sockets...). */
  limits: string[];
}

/** Memory one checkpoint holds on its own (its USS); `name` null is the kernel's root (the fresh interpreter). */
export interface CheckpointMemory {
  name: string | null;
  pid?: number;
  privateBytes?: number;
  /** The checkpoint is gone (dropped, or killed from outside). */
  missing?: boolean;
}

/** Time travel on a kernel that supports it (a local Python kernel started with checkpoints). */
export interface KernelCheckpoints {
  /** Names the kernel's checkpoint sockets: with a checkpoint's name, what a forked session starts from. */
  readonly token?: string | undefined;
  /** True while the live interpreter is gone but the kernel's checkpoints (and fresh root) still are. */
  readonly isRestorable: boolean;
  /** Forks a parked copy of the interpreter's state under `name`, between cells. */
  take(name: string): Promise<CheckpointTaken>;
  /** Makes a copy of checkpoint `name` the live interpreter (`null`: a fresh interpreter); the checkpoint stays. */
  restore(name: string | null): Promise<void>;
  /** Ends checkpoint `name` (no error when it is already gone); `wait: false` does not wait for it to go. */
  drop(name: string, options?: { wait?: boolean }): Promise<void>;
  /** The private memory of each named checkpoint and of the root. */
  describe(names: string[]): Promise<CheckpointMemory[]>;
  /**
   * Kills only the live interpreter (a cell that ignored its interrupt), so the checkpoints survive; false when
   * that cannot be done here (the kernel must then be shut down whole).
   */
  killInterpreter?(): Promise<boolean>;
}

/** Where to replace `code.slice(start, cursor)` and with what (tab completion). */
export interface CompletionReply {
  start: number;
  matches: string[];
}

/** Whether `code` is a whole statement (interactive front ends), and the indent to offer when it is not. */
export interface CompletenessReply {
  status: "complete" | "incomplete" | "invalid";
  indent: string;
}

/** One retained interpreter. */
export interface Kernel {
  /** Present when the kernel can take checkpoints (docs/checkpoints.md). */
  readonly checkpoints?: KernelCheckpoints | undefined;
  readonly language: CellLanguage;
  readonly isAlive: boolean;
  start(): Promise<void>;
  execute(code: string, options?: ExecuteOptions): Promise<ExecuteOutcome>;
  /**
   * Ask the running cell to stop; the kernel keeps its state. A cell that has not ended after the kernel's
   * interrupt grace is killed with its kernel, as when `execute`'s signal aborts (the kernel client escalates).
   */
  interrupt(): void;
  /** Stop the kernel and everything it started; resolves once it is gone. */
  shutdown(): Promise<KernelExit | undefined>;
  /** Registers a listener for the kernel's exit; returns a function that removes it. */
  onExit(listener: (exit: KernelExit) => void): () => void;
  /** Tab completion at `cursor` (UTF-16 units) from the live state; no matches when the kernel is gone. */
  complete?(code: string, cursor?: number): Promise<CompletionReply>;
  /** Is `code` a whole statement? Present only when the runtime can tell. */
  isComplete?(code: string): Promise<CompletenessReply>;
}
