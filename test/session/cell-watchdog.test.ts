// Unit tests of the cell watchdog with fake timers: its budget, ref-counted pause/resume, fresh windows, dispose.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CellWatchdog, isTimeoutReason, WatchdogTimer } from "../../src/session/cell-watchdog.js";

describe("CellWatchdog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts its signal with a TimeoutError when the budget runs out", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 2 });
    vi.advanceTimersByTime(1999);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(watchdog.signal.aborted).toBe(true);
    expect(isTimeoutReason(watchdog.signal.reason)).toBe(true);
    expect(String((watchdog.signal.reason as Error).message)).toBe("eval cell timed out after 2s");
  });

  it("takes a resolved budget as it is, without a second clamp", () => {
    const watchdog = new CellWatchdog({ resolvedTimeoutSec: 0.5, maxTimeoutSec: 5 });
    expect(watchdog.timeoutSec).toBe(0.5);
    vi.advanceTimersByTime(499);
    expect(watchdog.isExpired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(watchdog.isExpired).toBe(true);
  });

  it("applies the clamp to its own budget when used on its own", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 9999, maxTimeoutSec: 5 });
    expect(watchdog.timeoutSec).toBe(5);
    vi.advanceTimersByTime(5000);
    expect(watchdog.isExpired).toBe(true);
  });

  it("does not fire while paused, however long the pause lasts", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 1 });
    watchdog.pause();
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    expect(watchdog.isPaused).toBe(true);
  });

  it("starts a fresh full window when the last pause ends", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 2 });
    vi.advanceTimersByTime(1500);
    watchdog.pause();
    vi.advanceTimersByTime(10_000);
    watchdog.resume();
    vi.advanceTimersByTime(1999);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("counts pauses so the clock only restarts after every overlapping pause has ended", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 1 });
    const releaseA = watchdog.pause();
    const releaseB = watchdog.pause();
    releaseA();
    vi.advanceTimersByTime(5000);
    expect(watchdog.signal.aborted).toBe(false);
    releaseB();
    vi.advanceTimersByTime(999);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("ignores a release function called twice and unmatched resumes", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 1 });
    const releaseA = watchdog.pause();
    watchdog.pause();
    releaseA();
    releaseA();
    vi.advanceTimersByTime(5000);
    expect(watchdog.signal.aborted).toBe(false);
    watchdog.resume();
    watchdog.resume();
    expect(watchdog.isPaused).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("never fires after dispose, even when a pause ends later", () => {
    const watchdog = new CellWatchdog({ timeoutSec: 1 });
    const release = watchdog.pause();
    watchdog.dispose();
    release();
    vi.advanceTimersByTime(10_000);
    expect(watchdog.signal.aborted).toBe(false);

    const other = new CellWatchdog({ timeoutSec: 1 });
    vi.advanceTimersByTime(500);
    other.dispose();
    vi.advanceTimersByTime(10_000);
    expect(other.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("calls onExpire once, and a signal first read after expiry is already aborted", () => {
    const reasons: unknown[] = [];
    const watchdog = new CellWatchdog({ timeoutSec: 1, onExpire: (reason) => reasons.push(reason) });
    vi.advanceTimersByTime(5000);
    expect(reasons).toHaveLength(1);
    expect(isTimeoutReason(reasons[0])).toBe(true);
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.signal.reason).toBe(reasons[0]);
  });
});

describe("WatchdogTimer (one timer the cells of a kernel take turns on)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("times out the cell that holds it, a full window after that cell started, never an earlier cell", () => {
    const shared = new WatchdogTimer();
    const fired: string[] = [];
    const first = new CellWatchdog({ timeoutSec: 2, timer: shared, onExpire: () => fired.push("first") });
    vi.advanceTimersByTime(1500);
    first.dispose();
    const second = new CellWatchdog({ timeoutSec: 2, timer: shared, onExpire: () => fired.push("second") });
    vi.advanceTimersByTime(1999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["second"]);
    expect(first.isExpired).toBe(false);
    expect(second.signal.aborted).toBe(true);
    // After it fired it serves the next cell again.
    const third = new CellWatchdog({ timeoutSec: 1, timer: shared, onExpire: () => fired.push("third") });
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(["second", "third"]);
    expect(third.isExpired).toBe(true);
    shared.dispose();
  });

  it("gives a second watchdog its own timer while the first still holds the shared one", () => {
    const shared = new WatchdogTimer();
    const fired: string[] = [];
    new CellWatchdog({ timeoutSec: 3, timer: shared, onExpire: () => fired.push("holder") });
    vi.advanceTimersByTime(1000);
    new CellWatchdog({ timeoutSec: 1, timer: shared, onExpire: () => fired.push("other") });
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(["other"]);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(["other", "holder"]);
    shared.dispose();
  });

  it("restarts a full window after a pause, and a disposed holder leaves nothing that fires", () => {
    const shared = new WatchdogTimer();
    const fired: string[] = [];
    const watchdog = new CellWatchdog({ timeoutSec: 2, timer: shared, onExpire: () => fired.push("cell") });
    vi.advanceTimersByTime(1500);
    const release = watchdog.pause();
    vi.advanceTimersByTime(10_000);
    release();
    vi.advanceTimersByTime(1999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["cell"]);
    const idle = new CellWatchdog({ timeoutSec: 2, timer: shared, onExpire: () => fired.push("idle") });
    idle.dispose();
    vi.advanceTimersByTime(60_000);
    expect(fired).toEqual(["cell"]);
    shared.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("WatchdogTimer between cells", () => {
  it("keeps no process alive once its cell has ended (unref'd), and holds it while a cell runs", () => {
    const shared = new WatchdogTimer();
    const timerOf = () => (shared as unknown as { timer: NodeJS.Timeout }).timer;
    const watchdog = new CellWatchdog({ timeoutSec: 30, timer: shared });
    expect(timerOf().hasRef()).toBe(true);
    watchdog.dispose();
    expect(timerOf().hasRef()).toBe(false);
    const next = new CellWatchdog({ timeoutSec: 30, timer: shared });
    expect(timerOf().hasRef()).toBe(true);
    next.dispose();
    shared.dispose();
  });
});
