// Which jobs exist on a manager: ids, the session each one holds busy, and why an id is no longer known.
import { EvalkitError } from "../errors.js";
import { createRandomToken } from "../text/random-tokens.js";
import { clampLine } from "../text/text-lines.js";

/** What the registry needs of a job (the tool layer's EvalJob carries the rest). */
export interface RegisteredJob {
  readonly id: string;
  readonly sessionId: string;
  /** The session's queue identity (session id + real cwd), see `makeGroupKey`. */
  readonly group: string;
  /** True until every cell of the job has ended. */
  readonly isRunning: boolean;
}

/** Finished jobs whose final result nobody collected yet; older ones are dropped past this many. */
export const MAX_UNCOLLECTED_JOBS = 32;
/** Ids remembered after they went away, so a late call gets the reason instead of "unknown". */
const MAX_REMEMBERED_IDS = 256;
/** An unknown id is echoed at most this long: a megabyte of garbage must not come back in the error. */
const MAX_ID_ECHO_CHARS = 100;

/**
 * A job stays here from its first return until its final result has been returned once (or its session's
 * manager is disposed). A session with a running job refuses other calls (`SESSION_BUSY`).
 */
export class JobRegistry {
  private readonly jobs = new Map<string, RegisteredJob>();
  private readonly gone = new Map<string, string>();

  /** A fresh id: short enough for a model to copy, random so ids of different tools never collide. */
  newId(): string {
    return `job-${createRandomToken(5)}`;
  }

  add(job: RegisteredJob): void {
    this.jobs.set(job.id, job);
    this.dropOldUncollected();
  }

  /** The job, or JOB_NOT_FOUND saying why the id is not (or no longer) known. */
  get(id: string): RegisteredJob {
    const job = this.jobs.get(id);
    if (job !== undefined) return job;
    const why = this.gone.get(id);
    const running = [...this.jobs.values()].filter((j) => j.isRunning).map((j) => j.id);
    throw new EvalkitError(
      "JOB_NOT_FOUND",
      why !== undefined
        ? `job ${id} is gone: ${why}`
        : `unknown job id ${JSON.stringify(clampLine(id, MAX_ID_ECHO_CHARS))}` +
            (running.length > 0 ? ` (running jobs: ${running.join(", ")})` : " (no job is running)"),
      { job: id, running },
    );
  }

  /** True while the id is known (running, or finished and not collected). */
  has(id: string): boolean {
    return this.jobs.has(id);
  }

  /** The running job holding a session (session id + cwd), if any. */
  runningOn(group: string): RegisteredJob | undefined {
    for (const job of this.jobs.values()) if (job.isRunning && job.group === group) return job;
    return undefined;
  }

  /** Forgets a job; later calls with its id get `why`. */
  remove(id: string, why: string): void {
    if (!this.jobs.delete(id)) return;
    this.gone.set(id, why);
    if (this.gone.size > MAX_REMEMBERED_IDS) {
      const oldest = this.gone.keys().next().value;
      if (oldest !== undefined) this.gone.delete(oldest);
    }
  }

  /** Every job still known (running, or finished and not collected). */
  list(): RegisteredJob[] {
    return [...this.jobs.values()];
  }

  /** Final results cost memory (one return's view each): an agent that never collects must not grow the host. */
  private dropOldUncollected(): void {
    const finished = [...this.jobs.values()].filter((j) => !j.isRunning);
    for (const job of finished.slice(0, Math.max(0, finished.length - MAX_UNCOLLECTED_JOBS))) {
      this.remove(
        job.id,
        `it finished and its final result was dropped uncollected (more than ${MAX_UNCOLLECTED_JOBS} newer jobs)`,
      );
    }
  }
}

/** The error for a call on a session whose job still runs: names the job and how to wait for it. */
export function sessionBusyError(job: RegisteredJob): EvalkitError {
  return new EvalkitError(
    "SESSION_BUSY",
    `session "${job.sessionId}" is busy with job ${job.id}; wait for it with {"job": "${job.id}", "wait": 30} ` +
      `or stop it with {"job": "${job.id}", "cancel": true}`,
    { job: job.id, sessionId: job.sessionId },
  );
}
