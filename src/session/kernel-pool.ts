// The retained kernels of session mode: one entry per key, idle and LRU eviction, heartbeat, death bookkeeping.
import type { Kernel, KernelExit } from "../kernel/kernel.js";
import { CellAbortSlot } from "./cell-abort.js";
import { WatchdogTimer } from "./cell-watchdog.js";
import { describeIdleDeath, describeRestart } from "./exit-cause.js";
import type { KernelSpec } from "./session-types.js";

/** One key's slot. The kernel may be absent (never started, evicted or dead); the notice says why. */
export interface PoolEntry {
  readonly key: string;
  readonly group: string;
  spec: KernelSpec;
  kernel: Kernel | undefined;
  /** Calls currently holding this entry; an entry in use is never evicted. */
  useCount: number;
  lastUsedAt: number;
  /** Told to the first cell that runs on the next kernel of this key. */
  restartNotice: string | undefined;
  /** Armed at checkin; a checkout leaves it (a firing while in use evicts nothing), the next checkin refreshes it. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  removeExitListener: (() => void) | undefined;
  /** The cell timeout timer the entry's cells take turns on (cell-watchdog.ts). */
  readonly watchdogTimer: WatchdogTimer;
  /** The abort signal the entry's cells take turns on (cell-abort.ts). */
  readonly cellAbort: CellAbortSlot;
}

export interface KernelPoolOptions {
  maxKernels: number;
  idleEvictMs: number;
  heartbeatMs: number;
  /** True while a call holds or waits for the group's queue (queued work protects a kernel too). */
  isGroupBusy: (group: string) => boolean;
}

/** Kernel-less entries kept only to carry a restart notice; beyond this the oldest are forgotten. */
const MAX_REMEMBERED_ENTRIES = 256;

export class KernelPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly pendingShutdowns = new Set<Promise<unknown>>();
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(private readonly options: KernelPoolOptions) {
    this.heartbeat = setInterval(() => this.checkHeartbeat(), options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Live retained kernels. */
  get liveCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.kernel) count += 1;
    return count;
  }

  /** A snapshot of the retained kernels, most recently used first. */
  list(): PoolEntry[] {
    return [...this.entries.values()].filter((e) => e.kernel).sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  }

  /** Takes the key's entry for a call (creating it); it stays protected from eviction until `checkin`. */
  checkout(key: string, group: string, spec: KernelSpec): PoolEntry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        key,
        group,
        spec,
        kernel: undefined,
        useCount: 0,
        lastUsedAt: Date.now(),
        restartNotice: undefined,
        idleTimer: undefined,
        removeExitListener: undefined,
        watchdogTimer: new WatchdogTimer(),
        cellAbort: new CellAbortSlot(),
      };
      this.entries.set(key, entry);
    }
    entry.spec = spec;
    entry.useCount += 1;
    entry.lastUsedAt = Date.now();
    // The idle timer stays: it evicts only an entry nobody uses, and the checkin starts its window afresh.
    return entry;
  }

  /** Returns an entry after a call; arms its idle timer and trims the pool back to its size. */
  checkin(entry: PoolEntry): void {
    entry.useCount = Math.max(0, entry.useCount - 1);
    entry.lastUsedAt = Date.now();
    if (entry.useCount === 0 && entry.kernel) this.armIdleTimer(entry);
    this.enforceCapacity(undefined);
    this.pruneEntries();
  }

  /** Installs a started kernel in an entry and watches it for an unrequested exit. */
  install(entry: PoolEntry, kernel: Kernel): void {
    this.detach(entry);
    entry.kernel = kernel;
    entry.removeExitListener = kernel.onExit((exit) => this.onKernelExit(entry, kernel, exit));
  }

  /** Makes room before a new kernel starts for `entry`: evicts least recently used idle kernels. */
  makeRoomFor(entry: PoolEntry): void {
    this.enforceCapacity(entry, 1);
  }

  /** Forgets the entry's kernel (it died or was killed) and leaves a notice for the next one. */
  markLost(entry: PoolEntry, reason: string): void {
    const kernel = this.detach(entry);
    entry.restartNotice = describeRestart(reason);
    if (kernel) this.trackShutdown(kernel);
  }

  /** Shuts the entry's kernel down and waits for it (reset: the caller asked for a fresh kernel). */
  async discard(entry: PoolEntry): Promise<void> {
    const kernel = this.detach(entry);
    entry.restartNotice = undefined;
    if (kernel) await this.trackShutdown(kernel);
  }

  /** Stops every kernel and the heartbeat; resolves once all processes are gone. */
  async dispose(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const entry of this.entries.values()) {
      this.clearIdleTimer(entry);
      entry.watchdogTimer.dispose();
      const kernel = this.detach(entry);
      if (kernel) this.trackShutdown(kernel);
    }
    this.entries.clear();
    await Promise.allSettled([...this.pendingShutdowns]);
  }

  /** Waits for background shutdowns (evictions, lost kernels) to finish. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pendingShutdowns]);
  }

  private onKernelExit(entry: PoolEntry, kernel: Kernel, exit: KernelExit): void {
    if (entry.kernel !== kernel || exit.requested) return;
    this.detach(entry);
    this.clearIdleTimer(entry);
    entry.restartNotice = describeRestart(describeIdleDeath(exit));
  }

  /** Silent deaths (an exit event that never came, a hung launcher) are caught here between calls. */
  private checkHeartbeat(): void {
    for (const entry of this.entries.values()) {
      const kernel = entry.kernel;
      // An interpreter that died while its checkpoints live is brought back by the next call (docs/checkpoints.md).
      if (!kernel || entry.useCount > 0 || kernel.isAlive || kernel.checkpoints?.isRestorable) continue;
      this.markLost(entry, "previous kernel was found dead by the heartbeat");
      this.clearIdleTimer(entry);
    }
  }

  private isEvictable(entry: PoolEntry): boolean {
    return entry.kernel !== undefined && entry.useCount === 0 && !this.options.isGroupBusy(entry.group);
  }

  /** Evicts LRU idle kernels until `liveCount + extra <= maxKernels`; busy kernels are never touched. */
  private enforceCapacity(protectedEntry: PoolEntry | undefined, extra = 0): void {
    while (this.liveCount + extra > this.options.maxKernels) {
      let victim: PoolEntry | undefined;
      for (const entry of this.entries.values()) {
        if (entry === protectedEntry || !this.isEvictable(entry)) continue;
        if (!victim || entry.lastUsedAt < victim.lastUsedAt) victim = entry;
      }
      // Every kernel is busy: the limit is exceeded for now and trimmed when one comes back.
      if (!victim) return;
      this.evict(victim, `previous kernel was evicted to stay within ${this.options.maxKernels} kernels`);
    }
  }

  private evict(entry: PoolEntry, reason: string): void {
    this.clearIdleTimer(entry);
    this.markLost(entry, reason);
  }

  private armIdleTimer(entry: PoolEntry): void {
    if (entry.idleTimer !== undefined) {
      // One timer per entry, refreshed at every checkin instead of a clearTimeout and a setTimeout per call.
      entry.idleTimer.refresh();
      return;
    }
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      if (!this.isEvictable(entry)) return;
      this.evict(
        entry,
        `previous kernel was shut down after ${formatDuration(this.options.idleEvictMs)} idle`,
      );
    }, this.options.idleEvictMs);
    entry.idleTimer.unref();
  }

  private clearIdleTimer(entry: PoolEntry): void {
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }

  private detach(entry: PoolEntry): Kernel | undefined {
    const kernel = entry.kernel;
    entry.removeExitListener?.();
    entry.removeExitListener = undefined;
    entry.kernel = undefined;
    return kernel;
  }

  private trackShutdown(kernel: Kernel): Promise<unknown> {
    const done = kernel.shutdown().catch(() => undefined);
    this.pendingShutdowns.add(done);
    void done.finally(() => this.pendingShutdowns.delete(done));
    return done;
  }

  private pruneEntries(): void {
    if (this.entries.size <= MAX_REMEMBERED_ENTRIES) return;
    const forgettable = [...this.entries.values()]
      .filter((e) => !e.kernel && e.useCount === 0)
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const entry of forgettable) {
      if (this.entries.size <= MAX_REMEMBERED_ENTRIES) break;
      entry.watchdogTimer.dispose();
      this.entries.delete(entry.key);
    }
  }
}

function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10}s`;
  return `${ms}ms`;
}
