// What an interactive front end asks of a session's kernel besides cells: completion, completeness, a second
// interrupt, a restart and who the kernel is. The REPL reaches its kernels only through these and the manager.
import type { CellLanguage } from "../contracts/cell-result.js";
import type { CompletenessReply, CompletionReply, Kernel } from "../kernel/kernel.js";

/** Which kernel: a session (id + cwd, as `openCall` takes them) and one of its languages. */
export interface SessionKernelRef {
  sessionId?: string;
  cwd?: string;
  language: CellLanguage;
}

/** The part of SessionManager these helpers use (a type only: session-manager.ts does not import this file). */
export interface AssistedSessions {
  /** The kernel retained for `ref`, alive or not, or undefined when it has none. */
  peekKernel(ref: SessionKernelRef): Promise<Kernel | undefined>;
  /** Starts the kernel `ref`'s cells would use when it has none (a lost one is replaced). */
  warm(ref: SessionKernelRef): Promise<void>;
}

/** What a kernel says about itself after its handshake, for a banner. */
export interface KernelDescription {
  /** The interpreter's executable (local Python kernels). */
  executable?: string;
  /** The language's version (`3.12.1`). */
  version?: string;
  /** `CPython`, `ipython`, `irkernel`... */
  implementation?: string;
  /** Process id of the kernel (local kernels). */
  pid?: number;
}

/** How long a completion or completeness question may take: a front end waits for the answer. */
export const ASSIST_TIMEOUT_MS = 2000;

/**
 * Tab completion at `cursor` from the live state of `ref`'s kernel. No matches when the session has no live
 * kernel, the kernel cannot complete, or it does not answer within `timeoutMs` (a cell holding the GIL, a
 * synchronous JS loop). It never starts a kernel: a front end that wants one first calls `warm`.
 */
export async function completeInSession(
  sessions: AssistedSessions,
  ref: SessionKernelRef,
  code: string,
  cursor: number = code.length,
  timeoutMs: number = ASSIST_TIMEOUT_MS,
): Promise<CompletionReply> {
  const none: CompletionReply = { start: cursor, matches: [] };
  const kernel = await peekQuietly(sessions, ref);
  if (kernel?.isAlive !== true || kernel.complete === undefined) return none;
  return (await withDeadline(kernel.complete(code, cursor), timeoutMs)) ?? none;
}

/**
 * Whether `code` is a whole statement for `ref`'s kernel, or undefined when no live kernel can tell (no kernel
 * yet, a runtime without the capability, no answer within `timeoutMs`): the front end then decides itself.
 */
export async function checkCompleteInSession(
  sessions: AssistedSessions,
  ref: SessionKernelRef,
  code: string,
  timeoutMs: number = ASSIST_TIMEOUT_MS,
): Promise<CompletenessReply | undefined> {
  const kernel = await peekQuietly(sessions, ref);
  if (kernel?.isAlive !== true || kernel.isComplete === undefined) return undefined;
  return withDeadline(kernel.isComplete(code), timeoutMs);
}

/**
 * Interrupts `ref`'s running cell once more. The first interrupt belongs to the cell's signal (the kernel client
 * then kills the cell after the grace); a person who presses Ctrl-C again repeats the interrupt, as in IPython.
 */
export async function interruptInSession(sessions: AssistedSessions, ref: SessionKernelRef): Promise<void> {
  const kernel = await peekQuietly(sessions, ref);
  if (kernel?.isAlive === true) kernel.interrupt();
}

/**
 * Replaces `ref`'s kernel with a fresh one and waits until it is up (its state is lost). The old kernel is shut
 * down on request, so the manager replaces it as it replaces any kernel that ended, without a restart notice.
 */
export async function restartInSession(sessions: AssistedSessions, ref: SessionKernelRef): Promise<void> {
  await (await sessions.peekKernel(ref))?.shutdown();
  await sessions.warm(ref);
}

/**
 * What `ref`'s live kernel says about itself, or undefined when it has no live kernel. The kernel contract has no
 * self-description (yet): the Python and Jupyter kernels keep an `info` from their handshake, read here by shape,
 * so no caller downcasts to a kernel class.
 */
export async function describeSessionKernel(
  sessions: AssistedSessions,
  ref: SessionKernelRef,
): Promise<KernelDescription | undefined> {
  const kernel = await sessions.peekKernel(ref);
  if (kernel?.isAlive !== true) return undefined;
  const info = (kernel as { info?: unknown }).info;
  const fields = typeof info === "object" && info !== null ? (info as Record<string, unknown>) : {};
  const description: KernelDescription = {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const executable = text(fields.executable);
  const version = text(fields.pythonVersion) ?? text(fields.languageVersion);
  const implementation = text(fields.implementation);
  if (executable !== undefined) description.executable = executable;
  if (version !== undefined) description.version = version;
  if (implementation !== undefined) description.implementation = implementation;
  if (typeof fields.pid === "number") description.pid = fields.pid;
  return description;
}

/** The kernel, or undefined also when the session cannot name one (a language no runtime serves): Tab and
 * Enter never fail for that. */
function peekQuietly(sessions: AssistedSessions, ref: SessionKernelRef): Promise<Kernel | undefined> {
  return sessions.peekKernel(ref).catch(() => undefined);
}

/** The promise's value, or undefined once `ms` passed without one (or when it rejects). */
async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
