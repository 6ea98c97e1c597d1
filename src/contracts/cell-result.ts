// The eval result shape (DESIGN.md §3.2): one shape whatever happened, produced by the tool and read by every adapter.
import type { CellErrorInfo, CellOutput } from "./outputs.js";

/** The languages evalkit runs itself (no Jupyter server needed). */
export type LocalLanguage = "py" | "js";

/**
 * Languages a cell can run in: `py` and `js`, and with a Jupyter server configured any language its kernelspecs
 * offer (`r`, `julia`, `bash`, or a kernelspec name; docs/jupyter.md).
 */
export type CellLanguage = LocalLanguage | (string & {});

/** The long names of the local languages, also accepted wherever a language is named. */
const LONG_NAMES: Readonly<Record<LocalLanguage, string>> = { py: "python", js: "javascript" };

/** A language's name for people and code fences: "python", "javascript"; any other language keeps its own. */
export function describeLanguage(language: CellLanguage): string {
  return LONG_NAMES[language as LocalLanguage] ?? language;
}

/** The local language a name means ("py"/"python" → "py", "js"/"javascript" → "js"), or undefined. */
export function toLocalLanguage(name: string): LocalLanguage | undefined {
  if (name === "py" || name === "python") return "py";
  if (name === "js" || name === "javascript") return "js";
  return undefined;
}

/** How a cell ended; `running` only in a return of a job whose cell has not ended yet (docs/tool.md, Jobs). */
export type CellStatus = "ok" | "error" | "timeout" | "cancelled" | "killed" | "died" | "skipped" | "running";

/** Where the full output went when the text had to be shortened. */
export interface TruncationInfo {
  artifact: string;
  totalBytes: number;
  totalLines: number;
}

/**
 * What the kernel used while one cell ran, as the runner measured it (`getrusage`: the kernel process plus the
 * children it waited for). Absent when the kernel could not report it (it died, the cell never started).
 */
export interface CellUsage {
  /** User + system CPU time, in ms. */
  cpuMs: number;
  /** Highest resident set size during the cell (Linux; elsewhere the kernel's peak so far), in bytes. */
  peakRssBytes: number;
}

/** One cell's result. */
export interface CellResult {
  index: number;
  title?: string;
  language: CellLanguage;
  status: CellStatus;
  executionCount: number | null;
  durationMs: number;
  /** The cell's output as a model reads it, after truncation. */
  text: string;
  /** Everything the cell produced, in order. */
  outputs: CellOutput[];
  error?: CellErrorInfo;
  truncated?: TruncationInfo;
  notices?: string[];
  usage?: CellUsage;
}

/** Where a job stands: `running`, or how it ended (`done`: every cell ok; `failed`: some cell did not end ok). */
export type EvalJobState = "running" | "done" | "cancelled" | "failed";

/** The handle of a call that returned while its cells keep running (`yieldAfter`). */
export interface EvalJobInfo {
  id: string;
  state: EvalJobState;
}

/** `details` of an eval call. */
export interface EvalDetails {
  ok: boolean;
  cells: CellResult[];
  /** Present on every return of a job: a call that used `yieldAfter` and did not end in time, and `{ job }` calls. */
  job?: EvalJobInfo;
  /** Present when the call took, restored or undid a checkpoint (docs/checkpoints.md). */
  checkpoints?: CheckpointDetails;
}

/** One checkpoint of a session's Python kernel. */
export interface CheckpointSummary {
  name: string;
  /** Taken automatically for undo (dropped first by the budget; a named one never silently). */
  auto: boolean;
  /** Date.now() when it was taken. */
  takenAt: number;
  /** Memory only this checkpoint holds (its USS: about the pages changed since it was taken). */
  privateBytes?: number;
  /** What a restore of it will not carry (threads, child processes, sockets...). */
  limits: string[];
}

/** What a call's time travel did, and the session's checkpoints afterwards. */
export interface CheckpointDetails {
  /** The checkpoint this call took (after its cells ended ok). */
  taken?: string;
  /** The checkpoint this call restored (before its cells); `{undo}` names the automatic one it used. */
  restored?: string;
  /** Every checkpoint of the session's Python kernel, oldest first. */
  checkpoints: CheckpointSummary[];
  /** Memory the kernel's root (the fresh interpreter every runner forks from) holds on its own. */
  rootPrivateBytes?: number;
  notices: string[];
  /** Why the step failed (the call's cells then did not run, or ran without their checkpoint). */
  error?: { code: string; message: string };
}
