// The cell watchdog: aborts one cell at its deadline (bridge calls and input() pause the clock); it never kills.
import { clampTimeoutSec } from "./cell-timing.js";

/** Text used for a timed-out cell, shared by the reason and the cell notice. */
export function describeTimeout(timeoutSec: number): string {
  return `eval cell timed out after ${formatSeconds(timeoutSec)}s`;
}

function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1);
}

/** True when an abort reason came from a watchdog running out (a DOMException named TimeoutError). */
export function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === "TimeoutError";
}

export interface CellWatchdogOptions {
  /** A budget already resolved (cell-timing.ts): used as it is, no second clamp. */
  resolvedTimeoutSec?: number;
  /** Requested budget in seconds; clamped to 1..maxTimeoutSec (standalone use, without a resolved budget). */
  timeoutSec?: number;
  maxTimeoutSec?: number;
  /** Called once when the budget runs out (cheaper than listening on `signal` on a hot path). */
  onExpire?: (reason: DOMException) => void;
  /** The kernel's reusable timer; without it (or while another cell holds it) the watchdog makes its own. */
  timer?: WatchdogTimer | undefined;
}

/**
 * One timer the cells of one kernel take turns on: a new window is `refresh()` of the same Node timer instead of
 * a setTimeout and a clearTimeout per cell. Between cells it stays armed but unref'd (it keeps no process alive),
 * and a firing with no holder does nothing. A second watchdog while one holds it gets no turn and times itself.
 */
export class WatchdogTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ms = -1;
  private holder: CellWatchdog | undefined;

  /** Starts a window of `ms` for `watchdog`; false when another watchdog holds the timer. */
  take(watchdog: CellWatchdog, ms: number): boolean {
    if (this.holder !== undefined && this.holder !== watchdog) return false;
    this.holder = watchdog;
    if (this.timer !== undefined && this.ms === ms) {
      this.timer.refresh();
      this.timer.ref();
      return true;
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.ms = ms;
    this.timer = setTimeout(() => this.fire(), ms);
    return true;
  }

  /** Ends `watchdog`'s window (if it holds the timer). */
  release(watchdog: CellWatchdog): void {
    if (this.holder !== watchdog) return;
    this.holder = undefined;
    this.timer?.unref();
  }

  /** Stops the timer for good (the kernel is gone). */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.holder = undefined;
  }

  private fire(): void {
    const holder = this.holder;
    this.holder = undefined;
    holder?.expireNow();
  }
}

/**
 * One cell's budget. The window starts at construction. `pause()` stops the clock (reference-counted, since
 * `parallel()` overlaps bridge calls); when the last pause ends, a fresh full window starts, so a slow
 * `agent()` never eats the time the cell's own work gets afterwards. It only aborts: the kill of a cell that
 * ignores the interrupt is the kernel client's (ExecuteOptions.interruptGraceMs).
 */
export class CellWatchdog {
  readonly timeoutSec: number;
  private controller: AbortController | undefined;
  private expiredReason: DOMException | undefined;
  private readonly onExpire: ((reason: DOMException) => void) | undefined;
  private readonly shared: WatchdogTimer | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private isOnShared = false;
  private pauseDepth = 0;
  private isDisposed = false;

  constructor(options: CellWatchdogOptions = {}) {
    this.timeoutSec =
      options.resolvedTimeoutSec ?? clampTimeoutSec(options.timeoutSec, options.maxTimeoutSec);
    this.onExpire = options.onExpire;
    this.shared = options.timer;
    this.arm();
  }

  /** Aborts (reason: a DOMException named `TimeoutError`) when the budget runs out. Created on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.expiredReason) this.controller.abort(this.expiredReason);
    }
    return this.controller.signal;
  }

  get isExpired(): boolean {
    return this.expiredReason !== undefined;
  }

  get isPaused(): boolean {
    return this.pauseDepth > 0;
  }

  /**
   * Stops the clock until the matching `resume()`. Returns a release function that calls `resume()` at
   * most once, which is the safe way to pair them around an async call.
   */
  pause(): () => void {
    if (this.isDisposed || this.isExpired) return () => {};
    this.pauseDepth += 1;
    this.disarm();
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.resume();
    };
  }

  /** Ends one pause; the last one starts a fresh full window. Extra calls are ignored. */
  resume(): void {
    if (this.pauseDepth === 0) return;
    this.pauseDepth -= 1;
    if (this.pauseDepth === 0) this.arm();
  }

  /** Stops the watchdog for good; the signal never fires afterwards. */
  dispose(): void {
    this.isDisposed = true;
    this.disarm();
  }

  /** The shared timer's window ran out (only called while this watchdog holds it). */
  expireNow(): void {
    this.isOnShared = false;
    this.expire();
  }

  private arm(): void {
    if (this.isDisposed || this.isExpired || this.pauseDepth > 0) return;
    this.disarm();
    const ms = this.timeoutSec * 1000;
    if (this.shared?.take(this, ms) === true) {
      this.isOnShared = true;
      return;
    }
    this.timer = setTimeout(() => this.expire(), ms);
  }

  private expire(): void {
    this.timer = undefined;
    if (this.isDisposed || this.isExpired) return;
    const reason = new DOMException(describeTimeout(this.timeoutSec), "TimeoutError");
    this.expiredReason = reason;
    this.controller?.abort(reason);
    this.onExpire?.(reason);
  }

  private disarm(): void {
    if (this.isOnShared) {
      this.isOnShared = false;
      this.shared?.release(this);
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
