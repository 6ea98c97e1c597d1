// What the one kernel client needs to know about a runtime: how to start it, what it can do, and the few hooks
// where languages really differ. Python, JS and every protocol runner are one of these over KernelClient.
import type { CellLanguage } from "../../contracts/cell-result.js";
import type { EvalkitError } from "../../errors.js";
import type { ExecuteOptions, KernelExit } from "../kernel.js";
import type { ReadyFrame, RunnerFrame } from "../wire/runner-frames.js";

/** Every runner frame but the handshake's `ready`, which the connection answers itself. */
export type CellFrame = Exclude<RunnerFrame, ReadyFrame>;

/** What a connection tells its client. */
export interface ConnectionEvents {
  /**
   * A decoded runner frame. Stream text that arrived outside frames (JS's fd 1/2) comes as a `stdout`/`stderr`
   * frame with the id `""`. `isPlain`: a stream line that needed no unescaping (a live hint, Python only).
   */
  onFrame(frame: CellFrame, isPlain: boolean): void;
  /** The runner broke the protocol after `ready` (an over-long or undecodable line). */
  onProtocolError(err: EvalkitError): void;
  /** The process is gone (its stragglers were killed); once. */
  onExit(exit: KernelExit): void;
}

/** One started runtime process and its channel (a transport: NDJSON on stdio, or fd 3 frames + fd 1/2 pipes). */
export interface RuntimeConnection {
  /** The id of the process the host started (the process-group id of everything the kernel started). */
  readonly pid: number | undefined;
  /** False once the process exited or its end was asked for. */
  readonly isAlive: boolean;
  readonly exit: KernelExit | undefined;
  /** Waits for `ready` (a failure comes back as KERNEL_START_FAILED or a more precise code). */
  handshake(timeoutMs: number): Promise<ReadyFrame>;
  send(frame: Record<string, unknown>): void;
  /** SIGINT to what runs the cell; false when no signal can reach it from here (a launcher, Windows). */
  signalInterrupt(): boolean;
  /** Ends the process tree (exit request first when `polite`) and resolves once it is gone. */
  stop(polite: boolean): Promise<KernelExit | undefined>;
  /** Keep the host's event loop alive for this process (a cell runs) or not (idle). */
  setRef(isRef: boolean): void;
  /** The last lines the process wrote to its real stderr. */
  readonly stderrTail: string;
}

/** How a runtime is interrupted: a signal (reaches a busy loop), a protocol frame (crosses launchers), or both. */
export type InterruptMode = "signal" | "frame" | "signal+frame";

/** A cell as the client hands it to the runtime's execute frame. */
export interface CellRequest {
  id: string;
  code: string;
  options: ExecuteOptions;
  /** Present when the runtime echoes it: result/error/done frames without it were forged by the cell. */
  nonce: string | undefined;
  /** The host's count for the cell, when the host counts (`countsCellsOnHost`); null for uncounted cells. */
  executionCount: number | null;
}

/** The description the client runs a kernel from (one per kernel instance). */
export interface RuntimeDescription {
  /** Shown in errors: "python", "JS", "perl". */
  readonly name: string;
  readonly language: CellLanguage;
  readonly interrupt: InterruptMode;
  /** The grace after an interrupt before the kill, when neither the kernel nor the cell names one. */
  readonly interruptGraceMs: number;
  readonly startTimeoutMs: number;
  /** Stream text a cell keeps in `outcome.outputs` (bytes; default 1 MiB). */
  readonly retainStreamBytes?: number | undefined;
  /** The runner echoes the execute frame's `nonce` on result, error and done. */
  readonly echoesNonce: boolean;
  /** The runner answers `is_complete`. */
  readonly hasIsComplete: boolean;
  /**
   * A kernel that is not running (never started, or dead) starts on the next `execute` instead of failing it.
   * JS does (a fresh context is cheap and its state is gone anyway); Python does not, because its session may
   * restore the state from checkpoints and must decide itself.
   */
  readonly restartsOnExecute: boolean;
  /**
   * The host counts cells and names the count in the execute frame (JS: the count is part of the cell's file
   * name, which the host picks); otherwise the runner counts and reports it in `done`.
   */
  readonly countsCellsOnHost: boolean;
  /**
   * Output that arrives while no cell runs waits for the next cell (JS: timers and promises of earlier cells
   * keep writing into the one process's stdout, like a terminal); otherwise output of an ended cell is dropped,
   * because the runner names every frame's cell (Python).
   */
  readonly keepsStrayOutput: boolean;
  /** Launches the process (its `ready` comes later, through `handshake`). */
  launch(events: ConnectionEvents): Promise<RuntimeConnection>;
  /** The execute frame of a cell. */
  executeFrame(cell: CellRequest): Record<string, unknown>;
  /**
   * Work on the cell before its frame is built, overlapped with a kernel start when there is one (JS rewrites
   * top-level declarations and `await`, because its runner has no parser). Throws to refuse the cell.
   */
  prepareCell?(code: string, options: ExecuteOptions): void;
  /** JS maps columns of its rewritten cells back to the user's code; others report tracebacks as they are. */
  mapTraceback?(traceback: string[]): string[];
  /** Frames this client does not know (Python's checkpoint replies); true when the hook consumed the frame. */
  onUnknownFrame?(raw: Record<string, unknown>): boolean;
  /** False while a live interpreter is gone though its process lives (Python checkpoints). */
  isInterpreterAlive?(): boolean;
  /** Kills only the cell's interpreter when that keeps state worth keeping (Python checkpoints); true if done. */
  killInterpreter?(): Promise<boolean>;
  /** The runner sent `ready` (Python: its info and checkpoints). */
  onReady?(ready: ReadyFrame): void;
  /** The process exited (before the client settles the running cell). */
  onExit?(exit: KernelExit): void;
}
