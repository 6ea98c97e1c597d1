// One job: an eval call running in the background, cut into returns that together hold its output exactly once.
import type { CellResult, EvalDetails, EvalJobState } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import type { RegisteredJob } from "../session/job-registry.js";
import { buildCellContent, type EvalContent } from "./result-content.js";
import type { EvalProgress, EvalToolResult, RunCallTap, RunningCellInfo } from "./run-call.js";

/** Starts the call in the background with the job's tap, progress and abort signal. */
export type JobCallStarter = (
  tap: RunCallTap,
  onUpdate: (progress: EvalProgress) => void,
  signal: AbortSignal,
) => Promise<EvalToolResult>;

export interface EvalJobOptions {
  id: string;
  sessionId: string;
  group: string;
  totalCells: number;
  start: JobCallStarter;
}

/**
 * Finished cells wait in `pending` (each with the blocks of its last stretch); the running cell's collector is
 * cut at each return. Nothing is buffered beyond one return's bounded view: the collector spills to artifacts.
 */
export class EvalJob implements RegisteredJob {
  readonly id: string;
  readonly sessionId: string;
  readonly group: string;
  readonly totalCells: number;
  /** Settles when every cell has ended (never rejects). */
  readonly ended: Promise<void>;
  private readonly controller = new AbortController();
  private pending: { result: CellResult; content: EvalContent[] }[] = [];
  private running: RunningCellInfo | undefined;
  /** Cells already cut at least once: their last stretch may be empty without meaning "no output". */
  private readonly cutCells = new Set<number>();
  private state: EvalJobState = "running";
  private isCancelRequested = false;
  private hostFailure: string | undefined;
  private outputCount = 0;
  private lastProgress: EvalProgress | undefined;
  private listener: ((progress: EvalProgress) => void) | undefined;
  private readonly wakers = new Set<() => void>();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(options: EvalJobOptions) {
    this.id = options.id;
    this.sessionId = options.sessionId;
    this.group = options.group;
    this.totalCells = options.totalCells;
    const tap: RunCallTap = {
      cellStarted: (cell) => {
        this.running = cell;
        this.wake();
      },
      cellOutput: () => {
        this.outputCount++;
        this.wake();
      },
      cellFinished: (result, content) => {
        if (this.running?.index === result.index) this.running = undefined;
        const first = content[0];
        if (this.cutCells.has(result.index) && first?.type === "text")
          content = [{ type: "text", text: first.text.replace(/\n\(no output\)$/, "") }, ...content.slice(1)];
        this.pending.push({ result, content });
        this.wake();
      },
    };
    const onUpdate = (progress: EvalProgress) => {
      this.lastProgress = progress;
      try {
        this.listener?.(progress);
      } catch {
        // A failing listener must not break the job.
      }
    };
    this.ended = options.start(tap, onUpdate, this.controller.signal).then(
      (result) => this.finish(result.details),
      (err: unknown) => {
        this.hostFailure = err instanceof Error ? err.message : String(err);
        this.finish(undefined);
      },
    );
  }

  get isRunning(): boolean {
    return this.state === "running";
  }

  /** Outputs seen so far (`yieldAfter: 0` returns after the first). */
  get outputsSeen(): number {
    return this.outputCount;
  }

  /** Runs `fn` after earlier calls on this job, so two callers never cut the same stretch. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.turn.then(fn);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Sends live progress to `listener` (the latest state at once); returns the detach function. */
  attach(listener: ((progress: EvalProgress) => void) | undefined): () => void {
    if (listener === undefined) return () => {};
    this.listener = listener;
    const latest = this.latestProgress();
    if (latest !== undefined) {
      try {
        listener(latest);
      } catch {
        // as above
      }
    }
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }

  /**
   * The last progress with the running cell's elapsed time brought up to now: a silent cell's last update may be
   * minutes old, and a wait must not report it as just started.
   */
  private latestProgress(): EvalProgress | undefined {
    const progress = this.lastProgress;
    const running = this.running;
    if (progress?.running === undefined || running === undefined || progress.running.index !== running.index)
      return progress;
    const elapsedMs = Math.round(performance.now() - running.startedAt);
    return { ...progress, running: { ...progress.running, elapsedMs } };
  }

  /**
   * Resolves once `isReady()` holds, `ms` pass (Infinity: no limit) or `signal` aborts (then rejects with
   * ABORTED, leaving the output for the next call).
   */
  waitUntil(isReady: () => boolean, ms: number, signal?: AbortSignal): Promise<void> {
    if (isReady() || ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        this.wakers.delete(check);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const check = () => {
        if (!isReady()) return;
        done();
        resolve();
      };
      const onAbort = () => {
        done();
        reject(
          new EvalkitError(
            "ABORTED",
            `the wait on job ${this.id} was cancelled; the job keeps running and keeps its output for the next call`,
            { job: this.id },
          ),
        );
      };
      if (signal?.aborted) return onAbort();
      this.wakers.add(check);
      if (Number.isFinite(ms))
        timer = setTimeout(() => {
          done();
          resolve();
        }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Interrupts the running cell through the usual ladder (interrupt, then kill after the grace). */
  cancel(): void {
    if (this.state !== "running") return;
    this.isCancelRequested = true;
    this.controller.abort(new EvalkitError("ABORTED", `job ${this.id} was cancelled`));
  }

  /**
   * Everything since the previous return: finished cells with their last stretch, and the running cell's
   * output so far (status `running`). The output of all returns together is the cells' output, once.
   */
  take(): EvalToolResult {
    const items = this.pending;
    this.pending = [];
    const running = this.running;
    if (running !== undefined && this.state === "running") {
      this.cutCells.add(running.index);
      items.push(cutRunning(running, this.totalCells));
    }
    const cells = items.map((item) => item.result);
    const content = items.flatMap((item) => item.content);
    if (this.hostFailure !== undefined)
      content.push({ type: "text", text: `[notice] job ${this.id} failed: ${this.hostFailure}` });
    const details: EvalDetails = {
      ok: this.state === "running" || this.state === "done",
      cells,
      job: { id: this.id, state: this.state },
    };
    return { content, details };
  }

  private finish(details: EvalDetails | undefined): void {
    this.running = undefined;
    if (this.isCancelRequested || details?.cells.some((c) => c.status === "cancelled"))
      this.state = "cancelled";
    else if (details?.ok === true && this.hostFailure === undefined) this.state = "done";
    else this.state = "failed";
    this.wake();
  }

  private wake(): void {
    for (const check of [...this.wakers]) check();
  }
}

/** The running cell's output since the previous cut, as a cell result with status `running`. */
function cutRunning(
  running: RunningCellInfo,
  totalCells: number,
): { result: CellResult; content: EvalContent[] } {
  const collected = running.collector.cut();
  const result: CellResult = {
    index: running.index,
    ...(running.title !== undefined ? { title: running.title } : {}),
    language: running.language,
    status: "running",
    executionCount: null,
    durationMs: Math.round(performance.now() - running.startedAt),
    text: collected.text,
    outputs: collected.outputs,
  };
  if (collected.truncated) result.truncated = collected.truncated;
  if (collected.notices.length > 0) result.notices = collected.notices;
  return { result, content: buildCellContent([result], 0, collected.images, totalCells) };
}
