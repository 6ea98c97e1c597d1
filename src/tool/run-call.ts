// One eval call: cells in order on the session's kernels, stop at the first cell not `ok`, live updates, results.
import {
  type CellLanguage,
  type CellResult,
  type CheckpointDetails,
  describeLanguage,
  type EvalDetails,
} from "../contracts/cell-result.js";
import type { CellErrorInfo, CellOutput } from "../contracts/outputs.js";
import { EvalkitError, isEvalkitError } from "../errors.js";
import type { ArtifactStore } from "../output/artifacts/artifact-store.js";
import { hasRasterWork, rasteriseImages } from "../output/display/chart-raster.js";
import type { DisplayImage } from "../output/display/display-render.js";
import type { SecretValue } from "../output/streams/redact.js";
import type { CellTimeLimits } from "../session/cell-timing.js";
import type { SessionCall } from "../session/session-call.js";
import type { ResolvedCellRequest, SessionCellOutcome } from "../session/session-types.js";
import type { BackendSelector } from "./backends.js";
import { CellCollector } from "./cell-collector.js";
import { boundErrorInfo } from "./details-redaction.js";
import type { EvalInput } from "./input-schema.js";
import { buildCellContent, type EvalContent } from "./result-content.js";
import {
  checkpointNotTaken,
  describeCheckpoints,
  mergeTravel,
  rollBack,
  takeCheckpoint,
  withCall,
} from "./time-travel-call.js";
import type { EvalOutputOptions } from "./tool-options.js";

/** What `onUpdate` receives while a call runs: finished cells plus the running cell's text so far. */
export interface EvalProgress {
  content: EvalContent[];
  /** Finished cells only (`ok` stays false until the call ends). */
  details: EvalDetails;
  /** The cell running now and its output so far (bounded like the final text). */
  running?: { index: number; language: CellLanguage; title?: string; text: string; elapsedMs: number };
  /** Cells of the whole call (a job's later returns hold fewer). */
  totalCells?: number;
}

/** The result of an eval call. */
export interface EvalToolResult {
  content: EvalContent[];
  details: EvalDetails;
}

export interface RunCallContext {
  input: EvalInput;
  /** Opens the session call; may throw (bad cwd...), which fails the first cell. */
  openCall: () => SessionCall;
  backends: BackendSelector;
  /** The tool's time settings: with the parsed (clamped) `timeout`s, each cell's time is resolved here, once. */
  timeLimits: CellTimeLimits;
  output: EvalOutputOptions;
  /** The call's secrets, read when first needed (the tool reads them while the first cell runs). */
  secrets: () => readonly SecretValue[];
  artifactsDir: string | undefined;
  store: ArtifactStore | undefined;
  redact: (text: string) => string;
  onUpdate: ((progress: EvalProgress) => void) | undefined;
  /** Each output of the running cell as it arrives, redacted (for front ends that stream, like `exec`). */
  onOutput?: ((event: EvalOutputEvent) => void) | undefined;
  updateIntervalMs: number;
  /** A job watching the call (tool/eval-job.ts): each cell as it starts and as it ends. */
  tap?: RunCallTap;
  /** Cells that end with an error do not stop the call (EvalExecuteContext.continueOnError). */
  continueOnError?: boolean;
}

/** What a job sees of the call it runs in the background. */
export interface RunCallTap {
  /** The cell's collector is where a job cuts its returns from. */
  cellStarted(cell: RunningCellInfo): void;
  /** After the running cell's collector took an output. */
  cellOutput(): void;
  /** `content`: the cell's blocks as the call's result shows them. */
  cellFinished(result: CellResult, content: EvalContent[]): void;
}

/** One output of a running cell, for {@link RunCallContext.onOutput}. */
export interface EvalOutputEvent {
  /** The cell's index in the call. */
  index: number;
  output: CellOutput;
}

/** Runs the call's cells and builds `{ content, details }`. Never throws for what happens in a cell. */
export async function runEvalCall(ctx: RunCallContext): Promise<EvalToolResult> {
  const { input } = ctx;
  const cells: CellResult[] = [];
  const images: DisplayImage[][] = [];
  // Each finished cell's blocks, built once: live updates would otherwise rebuild all of them every time.
  const contents: EvalContent[][] = [];
  const addContent = () => {
    const index = cells.length - 1;
    contents.push(buildCellContent(cells, index, images[index] ?? [], input.cells.length));
  };
  // Only an input-level reset needs to know which languages it already reset.
  const resetDone = input.reset === true ? new Set<CellLanguage>() : undefined;
  let call: SessionCall | undefined;
  let stopReason: string | undefined;
  let travel: CheckpointDetails | undefined;
  try {
    if (input.restore !== undefined || input.undo === true) {
      travel = await withCall(ctx.openCall, call, (opened) => {
        call = opened;
        return rollBack(opened, input);
      });
      if (travel.error) stopReason = `not run: the ${input.undo ? "undo" : "restore"} failed`;
    }
    for (let index = 0; index < input.cells.length; index++) {
      const cell = input.cells[index]!;
      if (stopReason !== undefined) {
        const skipped: CellResult = {
          index,
          ...(cell.title !== undefined ? { title: cell.title } : {}),
          language: cell.language ?? "py",
          status: "skipped",
          executionCount: null,
          durationMs: 0,
          text: "",
          outputs: [],
        };
        cells.push(skipped);
        images.push([]);
        addContent();
        ctx.tap?.cellFinished(cells[index]!, contents[index]!);
        continue;
      }
      // A direct call skips the await when the route is known; a job's tap keeps the tick it always had.
      const route =
        (ctx.tap === undefined ? ctx.backends.routeNow(cell.language) : undefined) ??
        (await ctx.backends.route(cell.language));
      const startedAt = performance.now();
      const collector = new CellCollector({
        output: ctx.output,
        secrets: ctx.secrets,
        artifactsDir: ctx.artifactsDir,
        store: ctx.store,
        ...(ctx.onOutput ? { onOutput: (output: CellOutput) => emitOutput(ctx, index, output) } : {}),
      });
      let routeNotice: string | undefined;
      // No interpreter, a kernel that would not start, a broken channel: never a cell's own error to run past.
      let isHostFailure = false;
      let outcome: SessionCellOutcome;
      if (route.kind === "unavailable") {
        outcome = failedOutcome({ ename: route.ename, evalue: route.message, traceback: [] });
        isHostFailure = true;
      } else {
        routeNotice = route.notice;
        const isReset = cell.reset === true || (resetDone !== undefined && !resetDone.has(route.language));
        resetDone?.add(route.language);
        // Live updates and jobs watch the running cell; a plain call has nobody to tell.
        let updater = IDLE_UPDATER;
        if (ctx.tap !== undefined || ctx.onUpdate !== undefined) {
          const running: RunningCellInfo = {
            index,
            language: route.language,
            title: cell.title,
            startedAt,
            collector,
          };
          ctx.tap?.cellStarted(running);
          if (ctx.onUpdate !== undefined) updater = createUpdater(ctx, cells, contents, running);
        }
        const tap = ctx.tap;
        const request: ResolvedCellRequest = {
          language: route.language,
          code: cell.code,
          // The parse clamped both timeouts (input-schema.ts) and the default was clamped with the options.
          timing: {
            timeoutSec: cell.timeout ?? input.timeout ?? ctx.timeLimits.defaultTimeoutSec,
            interruptGraceMs: ctx.timeLimits.interruptGraceMs,
          },
          // The collector keeps the outputs (the one copy): the session and the kernel keep none.
          retainOutputs: false,
          onOutput:
            tap === undefined && updater === IDLE_UPDATER
              ? (output) => collector.add(output)
              : (output) => {
                  collector.add(output);
                  tap?.cellOutput();
                  updater.schedule();
                },
        };
        if (isReset) request.reset = true;
        try {
          call ??= ctx.openCall();
          outcome = await call.runResolved(request);
        } catch (err) {
          outcome = outcomeFromHostError(err);
          isHostFailure = true;
        } finally {
          updater.stop();
        }
      }
      const language = route.language;
      if (outcome.error && !collector.hasError) {
        collector.add({ type: "error", ...outcome.error });
      }
      const collected = collector.finish();
      // SVG and Vega(-Lite) charts become PNG for the model, oversized pictures are scaled down; the renderers
      // load on the first chart only.
      if (hasRasterWork(collected.images)) {
        const drawn = await rasteriseImages(collected.images);
        collected.notices.push(...keepFullImages(ctx, collected.images, drawn));
        collected.images = drawn;
      }
      // Filled field by field in the order `details` has always listed them (title only when given).
      const result = { index } as CellResult;
      if (cell.title !== undefined) result.title = cell.title;
      result.language = language;
      result.status = outcome.status;
      result.executionCount = outcome.executionCount;
      result.durationMs = Math.round(outcome.durationMs || performance.now() - startedAt);
      result.text = collected.text;
      result.outputs = collected.outputs;
      if (outcome.error) result.error = boundErrorInfo(outcome.error, ctx.redact);
      if (collected.truncated) result.truncated = collected.truncated;
      if (routeNotice !== undefined || outcome.notices.length > 0 || collected.notices.length > 0) {
        const allNotices = routeNotice !== undefined ? [routeNotice] : [];
        for (const notice of outcome.notices) allNotices.push(ctx.redact(notice));
        allNotices.push(...collected.notices);
        result.notices = allNotices;
      }
      if (outcome.usage) result.usage = outcome.usage;
      cells.push(result);
      images.push(collected.images);
      addContent();
      ctx.tap?.cellFinished(result, contents[index]!);
      const isRunPast = ctx.continueOnError === true && result.status === "error" && !isHostFailure;
      if (result.status !== "ok" && !isRunPast) {
        stopReason = `not run: cell ${index + 1} ended with status "${result.status}"`;
      }
      emit(ctx, cells, contents);
    }
    const name = input.checkpoint;
    if (name !== undefined && stopReason === undefined) {
      const taken = await withCall(ctx.openCall, call, (opened) => {
        call = opened;
        return takeCheckpoint(opened, name);
      });
      travel = travel ? mergeTravel(travel, taken) : taken;
    } else if (name !== undefined) {
      travel = travel ? mergeTravel(travel, checkpointNotTaken(name)) : checkpointNotTaken(name);
    }
  } finally {
    await call?.close();
  }
  const details: EvalDetails = { ok: cells.every((c) => c.status === "ok"), cells };
  const content = contents.flat();
  if (travel !== undefined) {
    details.checkpoints = travel;
    if (travel.error) details.ok = false;
    content.push({ type: "text", text: ctx.redact(describeCheckpoints(travel)) });
  }
  return { content, details };
}

/** Saves each picture that was scaled down for the model as an artifact; a notice per picture says where. */
function keepFullImages(
  ctx: RunCallContext,
  originals: readonly DisplayImage[],
  drawn: readonly DisplayImage[],
): string[] {
  const notices: string[] = [];
  drawn.forEach((image, index) => {
    const original = originals[index];
    if (image.scaledFrom === undefined || original === undefined) return;
    const { width, height } = image.scaledFrom;
    let where = "the full image is in details.outputs";
    if (ctx.store !== undefined) {
      try {
        const writer = ctx.store.create();
        writer.write(Buffer.from(original.data, "base64"));
        writer.close();
        where = `the full image (${original.mimeType}): ${writer.uri}`;
      } catch {
        // The artifact directory is not writable: the bundle in details.outputs still holds the original.
      }
    }
    notices.push(
      `image ${index + 1} (${width}x${height}) was scaled to ${image.width}x${image.height} for the model; ${where}`,
    );
  });
  return notices;
}

function emitOutput(ctx: RunCallContext, index: number, output: CellOutput): void {
  try {
    ctx.onOutput?.({ index, output });
  } catch {
    // A failing listener must not break the call.
  }
}

function emit(
  ctx: RunCallContext,
  cells: CellResult[],
  contents: EvalContent[][],
  running?: EvalProgress["running"],
) {
  if (!ctx.onUpdate) return;
  const content = contents.flat();
  if (running) {
    const header = `[${running.index + 1}/${ctx.input.cells.length}] ${running.title ?? describeLanguage(running.language)} (running)`;
    content.push({ type: "text", text: running.text === "" ? header : `${header}\n${running.text}` });
  }
  const progress: EvalProgress = {
    content,
    details: { ok: false, cells: [...cells] },
    totalCells: ctx.input.cells.length,
  };
  if (running) progress.running = running;
  try {
    ctx.onUpdate(progress);
  } catch {
    // A failing listener must not break the call.
  }
}

/** The cell running now. */
export interface RunningCellInfo {
  index: number;
  language: CellLanguage;
  title: string | undefined;
  startedAt: number;
  collector: CellCollector;
}

/** The updater of a cell nobody watches live. */
const IDLE_UPDATER = { schedule() {}, stop() {} };

/** Throttles live updates: at most one per interval while output flows, one right away when a cell starts. */
function createUpdater(
  ctx: RunCallContext,
  cells: CellResult[],
  contents: EvalContent[][],
  cell: RunningCellInfo,
) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = 0;
  let isStopped = false;
  const fire = () => {
    timer = undefined;
    if (isStopped) return;
    last = performance.now();
    const running: NonNullable<EvalProgress["running"]> = {
      index: cell.index,
      language: cell.language,
      text: cell.collector.snapshot(),
      elapsedMs: Math.round(last - cell.startedAt),
    };
    if (cell.title !== undefined) running.title = cell.title;
    emit(ctx, cells, contents, running);
  };
  if (ctx.onUpdate) fire();
  return {
    schedule() {
      if (!ctx.onUpdate || isStopped || timer !== undefined) return;
      const wait = Math.max(0, ctx.updateIntervalMs - (performance.now() - last));
      timer = setTimeout(fire, wait);
    },
    stop() {
      isStopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function failedOutcome(error: CellErrorInfo, notices: string[] = []): SessionCellOutcome {
  return { status: "error", executionCount: null, outputs: [], error, durationMs: 0, notices };
}

/** A host-side failure (interpreter missing, kernel would not start, bad cwd) reported as the cell's error. */
function outcomeFromHostError(err: unknown): SessionCellOutcome {
  if (isEvalkitError(err, "DISPOSED") || isEvalkitError(err, "ABORTED")) {
    return { status: "cancelled", executionCount: null, outputs: [], durationMs: 0, notices: [err.message] };
  }
  if (err instanceof EvalkitError) {
    return failedOutcome({ ename: toErrorName(err.code), evalue: err.message, traceback: [] });
  }
  const message = err instanceof Error ? err.message : String(err);
  return failedOutcome({ ename: "InternalError", evalue: message, traceback: [] });
}

/** `KERNEL_START_FAILED` → `KernelStartFailed`. */
function toErrorName(code: string): string {
  return code
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}
