// Jobs at the tool's surface: a cells call that returns early (`yieldAfter`), `{ job, wait }` and `{ job, cancel }`.
import { EvalkitError } from "../errors.js";
import { normaliseCwd } from "../session/call-cwd.js";
import { type JobRegistry, sessionBusyError } from "../session/job-registry.js";
import { makeGroupKey } from "../session/session-keys.js";
import { EvalJob, type JobCallStarter } from "./eval-job.js";
import type { EvalInput, EvalJobInput } from "./input-schema.js";
import type { EvalProgress, EvalToolResult } from "./run-call.js";

/** With `yieldAfter: 0`, how long after the first output the call still waits for the cells to end. */
export const FIRST_OUTPUT_GRACE_MS = 100;

export interface JobCallContext {
  registry: JobRegistry;
  sessionId: string;
  /** The session's queue identity (see {@link sessionGroup}). */
  group: string;
  signal: AbortSignal | undefined;
  onUpdate: ((progress: EvalProgress) => void) | undefined;
}

/** The queue identity of a tool's session; a cwd that does not resolve gets its own (the call reports it). */
export function sessionGroup(sessionId: string, cwd: string): string {
  try {
    return makeGroupKey(sessionId, normaliseCwd(cwd));
  } catch {
    return makeGroupKey(sessionId, cwd);
  }
}

/** SESSION_BUSY when a job still runs on the session. */
export function assertSessionFree(registry: JobRegistry, group: string): void {
  const job = registry.runningOn(group);
  if (job !== undefined) throw sessionBusyError(job);
}

/**
 * Runs a cells call as a job: returns as any call would when the cells end within `yieldAfter` seconds
 * (`0`: up to the first output), else with the output so far and `details.job`, the cells running on.
 */
export async function runYieldingCall(
  ctx: JobCallContext,
  input: EvalInput,
  start: JobCallStarter,
  onJob: (job: EvalJob) => void,
): Promise<EvalToolResult> {
  const job = new EvalJob({
    id: ctx.registry.newId(),
    sessionId: ctx.sessionId,
    group: ctx.group,
    totalCells: input.cells.length,
    start,
  });
  ctx.registry.add(job);
  onJob(job);
  // Until the call returns, its caller's signal cancels the cells as it would for any call.
  const onAbort = () => job.cancel();
  if (ctx.signal?.aborted) job.cancel();
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  const detach = job.attach(ctx.onUpdate);
  try {
    const yieldAfter = input.yieldAfter ?? 0;
    await job.waitUntil(
      () => !job.isRunning || (yieldAfter === 0 && job.outputsSeen > 0),
      yieldAfter === 0 ? Number.POSITIVE_INFINITY : yieldAfter * 1000,
    );
    // A quick cell's first output is often its last (`print('hi')`): a moment's grace lets it end, so the
    // call returns as an ordinary result instead of a handle that costs the agent a round trip.
    if (yieldAfter === 0 && job.isRunning) await job.waitUntil(() => !job.isRunning, FIRST_OUTPUT_GRACE_MS);
    if (!job.isRunning) await job.ended;
    const result = job.take();
    if (!job.isRunning) {
      // Ended in time: an ordinary call, no handle to collect.
      ctx.registry.remove(job.id, "its cells ended before yieldAfter and the call returned their result");
      delete result.details.job;
      return result;
    }
    return withJobNote(result);
  } finally {
    detach();
    ctx.signal?.removeEventListener("abort", onAbort);
  }
}

/** `{ job, wait? }` or `{ job, cancel: true }`: what the job produced since its previous return. */
export function continueJob(ctx: JobCallContext, input: EvalJobInput): Promise<EvalToolResult> {
  const job = findJob(ctx.registry, input.job);
  // A cancel takes effect at once, also while another call waits on the job (that wait then ends with it).
  if (input.cancel === true) job.cancel();
  return job.exclusive(async () => {
    // A concurrent call may have collected the final result while this one queued.
    if (input.cancel === true && !ctx.registry.has(job.id)) return cancelledElsewhere(job);
    findJob(ctx.registry, input.job);
    const detach = job.attach(ctx.onUpdate);
    try {
      if (input.cancel === true) {
        job.cancel();
        await job.ended;
      } else {
        await job.waitUntil(() => !job.isRunning, (input.wait ?? 0) * 1000, ctx.signal);
      }
    } finally {
      detach();
    }
    const result = job.take();
    if (!job.isRunning) {
      ctx.registry.remove(
        job.id,
        `it ended (${result.details.job?.state}) and its final result was already returned`,
      );
    }
    return withJobNote(result);
  });
}

/** A cancel whose job's final result went to the call that was waiting on it: the state, no cells twice. */
function cancelledElsewhere(job: EvalJob): EvalToolResult {
  const result = job.take();
  result.content.push({
    type: "text",
    text:
      `[job ${job.id} ${result.details.job?.state}] the cancel took effect; the job's final result went to ` +
      "the call that was waiting on it",
  });
  return result;
}

function findJob(registry: JobRegistry, id: string): EvalJob {
  const job = registry.get(id);
  if (job instanceof EvalJob) return job;
  throw new EvalkitError("JOB_NOT_FOUND", `job ${id} was not started by an eval tool`, { job: id });
}

/** The handle in words: many clients show a model only the content, not `details`. */
function withJobNote(result: EvalToolResult): EvalToolResult {
  const job = result.details.job;
  if (job === undefined) return result;
  const text =
    job.state === "running"
      ? `[job ${job.id} running] the cells keep running; collect their new output with ` +
        `{"job": "${job.id}", "wait": <seconds>} or stop them with {"job": "${job.id}", "cancel": true}`
      : `[job ${job.id} ${job.state}] this is the job's final result`;
  result.content.push({ type: "text", text });
  return result;
}
