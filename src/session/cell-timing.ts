// A cell's time, resolved once: the one owner of the default timeout, the 1..max clamp and the interrupt grace.

/** Default per-cell budget in seconds (DESIGN.md §3.1). */
export const DEFAULT_TIMEOUT_SEC = 30;
/** Default ceiling for any per-cell budget, in seconds. */
export const DEFAULT_MAX_TIMEOUT_SEC = 3600;
/**
 * Milliseconds an interrupted Python cell gets to stop before its kernel is killed: the Python runtime's own grace
 * (a runtime may have a shorter one: the JS kernel's 0.5 s), and the most a kill notice ever names when no grace
 * was configured.
 */
export const DEFAULT_INTERRUPT_GRACE_MS = 5000;

/** The limits a cell's time is resolved against (a tool's or a session manager's settings). */
export interface CellTimeLimits {
  /** Seconds a cell that asks for nothing gets (clamped like any request). */
  defaultTimeoutSec: number;
  /** Ceiling of any cell's budget, in seconds (at least 1). */
  maxTimeoutSec: number;
  /** Configured grace after an interrupt; undefined: each runtime's own (Python 5 s, JS 0.5 s). */
  interruptGraceMs: number | undefined;
}

/**
 * A cell's time as resolved at the entry point (the tool boundary, or the session layer's public `run` for
 * library callers) and carried down unchanged: the watchdog aborts at `timeoutSec`, and the kernel client kills
 * the cell `interruptGraceMs` after the interrupt (ExecuteOptions.interruptGraceMs). Nothing below re-clamps it.
 */
export interface CellTiming {
  readonly timeoutSec: number;
  /** Passed to the kernel as `ExecuteOptions.interruptGraceMs`; undefined leaves the runtime's own grace. */
  readonly interruptGraceMs: number | undefined;
}

/**
 * Clamps a requested timeout to `1..maxTimeoutSec`. A missing or non-finite value becomes the default
 * (itself clamped), so a caller can pass user input straight through. The one place the rule lives.
 */
export function clampTimeoutSec(
  requested: number | undefined,
  maxTimeoutSec: number = DEFAULT_MAX_TIMEOUT_SEC,
  defaultSec: number = DEFAULT_TIMEOUT_SEC,
): number {
  const ceiling = Number.isFinite(maxTimeoutSec) && maxTimeoutSec >= 1 ? maxTimeoutSec : 1;
  const value = requested !== undefined && Number.isFinite(requested) ? requested : defaultSec;
  if (!Number.isFinite(value) || value < 1) return 1;
  return Math.min(value, ceiling);
}

/** Limits from a manager's or tool's options: defaults filled in and clamped (the grace only when configured). */
export function resolveTimeLimits(
  options: { [K in keyof CellTimeLimits]?: CellTimeLimits[K] | undefined } = {},
): CellTimeLimits {
  const maxTimeoutSec = options.maxTimeoutSec ?? DEFAULT_MAX_TIMEOUT_SEC;
  return {
    defaultTimeoutSec: clampTimeoutSec(options.defaultTimeoutSec, maxTimeoutSec),
    maxTimeoutSec,
    interruptGraceMs: options.interruptGraceMs,
  };
}

/** One cell's timing from its requested timeout (seconds; undefined: the default) and the limits. */
export function resolveCellTiming(requestedSec: number | undefined, limits: CellTimeLimits): CellTiming {
  return {
    timeoutSec: clampTimeoutSec(requestedSec, limits.maxTimeoutSec, limits.defaultTimeoutSec),
    interruptGraceMs: limits.interruptGraceMs,
  };
}
