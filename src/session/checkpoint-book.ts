// The checkpoints of one kernel as the session sees them: names, automatic undo levels, the budget, crash recovery.
import type { CheckpointDetails, CheckpointSummary } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import type { Kernel, KernelCheckpoints } from "../kernel/kernel.js";

/** Checkpoint settings of a session manager (docs/checkpoints.md). */
export interface CheckpointOptions {
  /** Automatic checkpoints kept for `{undo: true}`, one taken before each call that runs Python cells (default 0: off). */
  undo?: number;
  /** Most checkpoints a kernel keeps, named and automatic together (default 16). */
  maxCount?: number;
  /** Most private memory (bytes) the checkpoints of a kernel hold together (default 4 GiB). */
  maxBytes?: number;
  /** After the interpreter dies, bring back its newest checkpoint instead of a fresh interpreter (default false). */
  restoreOnCrash?: boolean;
}

export const DEFAULT_MAX_CHECKPOINTS = 16;
export const DEFAULT_MAX_CHECKPOINT_BYTES = 4 * 1024 ** 3;
const REFRESH_INTERVAL_MS = 1000;

/** One checkpoint in a session's list. */
export type CheckpointEntry = CheckpointSummary;

/** What a time-travel step did, for the result (`details.checkpoints`). */
export type CheckpointReport = Omit<CheckpointDetails, "error">;

const books = new WeakMap<Kernel, CheckpointBook>();

/** The book of `kernel` (one per kernel instance: a new kernel starts with no checkpoints). */
export function checkpointBookOf(kernel: Kernel, options: CheckpointOptions): CheckpointBook {
  const source = kernel.checkpoints;
  if (source === undefined) {
    throw new EvalkitError(
      "CHECKPOINTS_UNSUPPORTED",
      "checkpoints need a local Python kernel on Linux started with checkpoints on (the `checkpoints` option); " +
        "JS kernels, kernels behind a launcher and the Jupyter backend cannot take them",
    );
  }
  let book = books.get(kernel);
  if (book === undefined) {
    book = new CheckpointBook(source, options);
    books.set(kernel, book);
  }
  return book;
}

/** Before the first Python cell of a call: the automatic checkpoint `{undo: true}` returns to (never fails the call). */
export async function takeUndoPoint(
  kernel: Kernel,
  options: CheckpointOptions | undefined,
  notices: string[],
): Promise<void> {
  if (!options?.undo || kernel.checkpoints === undefined) return;
  try {
    await checkpointBookOf(kernel, options).takeAutomatic(notices);
  } catch (err) {
    notices.push(`no undo point for this call: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The interpreter died but its kernel's checkpoints live: a fresh or restored one takes its place; false if not. */
export async function recoverInterpreter(
  kernel: Kernel,
  options: CheckpointOptions | undefined,
  notices: string[],
): Promise<boolean> {
  if (options === undefined || kernel.checkpoints?.isRestorable !== true) return false;
  try {
    notices.push(...(await checkpointBookOf(kernel, options).recover()));
    return kernel.isAlive;
  } catch (err) {
    notices.push(`the checkpoints could not be used: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
}

/** The checkpoints of one kernel, in the order they were taken. */
export class CheckpointBook {
  private entries: CheckpointEntry[] = [];
  private autoSerial = 0;
  private rootBytes: number | undefined;
  /** performance.now() of the last memory reading (automatic takes reuse a recent one: each costs a round trip). */
  private refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly kernel: KernelCheckpoints,
    private readonly options: CheckpointOptions,
  ) {}

  get list(): CheckpointEntry[] {
    return this.entries.map((entry) => ({ ...entry, limits: [...entry.limits] }));
  }

  /** Takes checkpoint `name` (a name in use is replaced); the budget may then evict automatic ones. */
  async take(name: string, notices: string[] = []): Promise<CheckpointEntry> {
    if (this.entries.some((entry) => entry.name === name)) {
      await this.kernel.drop(name);
      this.entries = this.entries.filter((entry) => entry.name !== name);
      notices.push(`checkpoint "${name}" replaced the one of the same name`);
    }
    return this.add(name, false, notices);
  }

  /** The automatic checkpoint before a call runs cells; only `undo` of them are kept. */
  async takeAutomatic(notices: string[] = []): Promise<void> {
    const levels = this.options.undo ?? 0;
    if (levels <= 0) return;
    await this.add(`undo-${++this.autoSerial}`, true, notices);
    const autos = this.entries.filter((entry) => entry.auto);
    for (const entry of autos.slice(0, Math.max(0, autos.length - levels))) await this.evict(entry, false);
  }

  /** Rolls the live interpreter back to `name` (it stays, so it can be restored again). */
  async restore(name: string): Promise<void> {
    if (!this.entries.some((entry) => entry.name === name)) await this.refresh();
    await this.kernel.restore(name);
  }

  /** Back to the state before the last call that ran cells; that automatic checkpoint is used up. */
  async undo(): Promise<string> {
    const newest = this.entries.filter((entry) => entry.auto).at(-1);
    if (newest === undefined) {
      const why =
        (this.options.undo ?? 0) <= 0
          ? "automatic checkpoints are off (turn them on with the `checkpoints: { undo: N }` option)"
          : "no call has run cells since the kernel started or since the last undo";
      throw new EvalkitError("CHECKPOINT_NOT_FOUND", `nothing to undo: ${why}`);
    }
    await this.kernel.restore(newest.name);
    await this.evict(newest);
    return newest.name;
  }

  /**
   * The interpreter died: a fresh one takes its place (or, with `restoreOnCrash`, the newest checkpoint), and
   * the checkpoints stay. Returns the notices that say so.
   */
  async recover(): Promise<string[]> {
    const newest = this.entries.at(-1);
    if (this.options.restoreOnCrash === true && newest !== undefined) {
      await this.kernel.restore(newest.name);
      return [`state lost; checkpoint "${newest.name}" was restored automatically (restoreOnCrash)`];
    }
    await this.kernel.restore(null);
    if (newest === undefined) return ["state lost; a fresh interpreter took its place"];
    const named = this.entries.map((entry) => `"${entry.name}"`).join(", ");
    return [
      `state lost; a fresh interpreter took its place. The checkpoints survived (${named}): ` +
        `{"restore": "${newest.name}"} brings back the newest`,
    ];
  }

  /** Where a forked session starts from: this kernel's token and checkpoint `name` (taken now). */
  async forkPoint(name: string): Promise<{ token: string; name: string }> {
    const token = this.kernel.token;
    if (token === undefined) {
      throw new EvalkitError(
        "CHECKPOINTS_UNSUPPORTED",
        "this kernel cannot be forked (its runner gave no token)",
      );
    }
    await this.take(name);
    return { token, name };
  }

  /** Reads the memory each checkpoint holds and forgets those that are gone. */
  async refresh(): Promise<void> {
    this.refreshedAt = performance.now();
    const described = await this.kernel.describe(this.entries.map((entry) => entry.name));
    const byName = new Map(described.map((memory) => [memory.name, memory]));
    this.rootBytes = byName.get(null)?.privateBytes;
    this.entries = this.entries.filter((entry) => byName.get(entry.name)?.missing !== true);
    for (const entry of this.entries) {
      const bytes = byName.get(entry.name)?.privateBytes;
      if (bytes !== undefined) entry.privateBytes = bytes;
    }
  }

  /** The session's checkpoints with fresh memory figures. */
  async report(extra: Partial<CheckpointReport> = {}): Promise<CheckpointReport> {
    await this.refresh();
    const report: CheckpointReport = { checkpoints: this.list, notices: [], ...extra };
    if (this.rootBytes !== undefined) report.rootPrivateBytes = this.rootBytes;
    return report;
  }

  private async add(name: string, auto: boolean, notices: string[]): Promise<CheckpointEntry> {
    const taken = await this.kernel.take(name);
    const entry: CheckpointEntry = { name, auto, takenAt: Date.now(), limits: taken.limits };
    this.entries.push(entry);
    for (const limit of taken.limits) notices.push(`checkpoint "${name}": ${limit}`);
    await this.enforceBudget(entry, notices);
    return entry;
  }

  /**
   * Count first, then bytes: the oldest automatic checkpoints go first (each eviction named in a notice). A named
   * checkpoint is never evicted: when named ones alone exceed the budget, the new one is refused.
   */
  private async enforceBudget(added: CheckpointEntry, notices: string[]): Promise<void> {
    const maxCount = this.options.maxCount ?? DEFAULT_MAX_CHECKPOINTS;
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_CHECKPOINT_BYTES;
    while (this.entries.length > maxCount) {
      if (!(await this.evictOldestAutomatic(added, notices, `more than ${maxCount} checkpoints`))) {
        await this.refuse(added, `more than ${maxCount} checkpoints (maxCount)`);
      }
    }
    // Memory changes only as cells run: an automatic take reuses a reading less than a second old.
    if (!added.auto || performance.now() - this.refreshedAt >= REFRESH_INTERVAL_MS) await this.refresh();
    for (;;) {
      const total = this.entries.reduce((sum, entry) => sum + (entry.privateBytes ?? 0), 0);
      if (total <= maxBytes) return;
      const over = `checkpoints hold ${formatBytes(total)}, more than ${formatBytes(maxBytes)}`;
      if (!(await this.evictOldestAutomatic(added, notices, over))) {
        await this.refuse(added, `${over} (maxBytes)`);
      }
    }
  }

  private async evictOldestAutomatic(
    added: CheckpointEntry,
    notices: string[],
    why: string,
  ): Promise<boolean> {
    const victim = this.entries.find((entry) => entry.auto && entry !== added);
    if (victim === undefined) return false;
    await this.evict(victim, false);
    notices.push(`automatic checkpoint "${victim.name}" dropped: ${why}`);
    return true;
  }

  private async refuse(added: CheckpointEntry, why: string): Promise<never> {
    await this.evict(added);
    throw new EvalkitError(
      "CHECKPOINT_FAILED",
      `checkpoint "${added.name}" not kept: ${why}; named checkpoints are never dropped silently, so drop or ` +
        "restore one first, or raise the budget",
      { name: added.name },
    );
  }

  /** `wait: false` for automatic ones (unique names): the drop is sent, the checkpoint ends on its own. */
  private async evict(entry: CheckpointEntry, wait = true): Promise<void> {
    this.entries = this.entries.filter((other) => other !== entry);
    await this.kernel.drop(entry.name, { wait });
  }
}

/** 1.5 MB, 12 kB: for notices. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.round(bytes / 1024)} kB`;
}
