// Turns the eval tool's live updates into MCP progress notifications: strictly increasing, throttled, with heartbeats.
import { describeLanguage } from "../contracts/cell-result.js";
import type { EvalProgress } from "../tool/run-call.js";

/** The `params` of one `notifications/progress`. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total: number;
  message: string;
}

export interface ProgressReporterOptions {
  progressToken: string | number;
  /** Cells in the call: `total` of every notification. */
  totalCells: number;
  send: (params: ProgressParams) => void;
  /** While a cell runs, a notification at least this often even without output (keeps client timeouts alive). */
  heartbeatMs: number;
  /** Fewest ms between two notifications caused by output (default 250). */
  minIntervalMs?: number;
  now?: () => number;
}

export interface ProgressReporter {
  /** Feed one update of the eval tool (`execute`'s `onUpdate`). */
  update(progress: EvalProgress): void;
  /** Stops the heartbeat; no notification is sent afterwards. */
  stop(): void;
}

const MESSAGE_LINE_CHARS = 200;

/**
 * `progress` is `finishedCells + f` where `f` creeps towards 1 while a cell runs, so a client can draw a bar
 * against `total` (the number of cells) and every value is larger than the one before, as MCP requires.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const now = options.now ?? Date.now;
  const minIntervalMs = options.minIntervalMs ?? 250;
  let lastValue = -1;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let finished = 0;
  let ticksInCell = 0;
  let lastRunningIndex = -1;
  let running: { label: string; lastLine: string; startedAt: number } | undefined;
  let isStopped = false;
  // A job call does not know the job's cell count up front: the first update says it.
  let totalCells = options.totalCells;
  let trailing: ReturnType<typeof setTimeout> | undefined;

  const describe = (): string => {
    if (running === undefined) return `${finished}/${totalCells} cells done`;
    const seconds = ((now() - running.startedAt) / 1000).toFixed(1);
    const tail = running.lastLine === "" ? "" : `: ${running.lastLine}`;
    return `${running.label} running ${seconds}s${tail}`;
  };

  const send = () => {
    if (isStopped) return;
    const fraction = running === undefined ? 0 : 1 - 1 / (1 + ticksInCell * 0.05);
    let value = finished + fraction;
    if (value <= lastValue) value = lastValue + 1e-6;
    lastValue = value;
    lastSentAt = now();
    ticksInCell++;
    try {
      options.send({
        progressToken: options.progressToken,
        progress: value,
        total: totalCells,
        message: describe(),
      });
    } catch {
      // A closed connection must not break the call.
    }
  };

  const heartbeat = setInterval(() => {
    if (running !== undefined && now() - lastSentAt >= options.heartbeatMs) send();
  }, options.heartbeatMs);
  heartbeat.unref?.();

  return {
    update(progress) {
      if (isStopped) return;
      if (progress.totalCells !== undefined) totalCells = progress.totalCells;
      const done = progress.details.cells.length;
      const runningIndex = progress.running?.index ?? -1;
      const cellChanged = done !== finished || runningIndex !== lastRunningIndex;
      lastRunningIndex = runningIndex;
      if (done !== finished) {
        finished = done;
        ticksInCell = 0;
      }
      const cell = progress.running;
      if (cell === undefined) {
        running = undefined;
      } else {
        const name = cell.title ?? describeLanguage(cell.language);
        running = {
          label: `cell ${cell.index + 1}/${totalCells} (${name})`,
          lastLine: lastLineOf(cell.text),
          startedAt: now() - cell.elapsedMs,
        };
      }
      // A cell starting or ending is reported at once; output at the throttled rate, the latest state last.
      const wait = minIntervalMs - (now() - lastSentAt);
      if (cellChanged || wait <= 0) {
        clearTimeout(trailing);
        trailing = undefined;
        send();
      } else {
        trailing ??= setTimeout(() => {
          trailing = undefined;
          send();
        }, wait);
      }
    },
    stop() {
      isStopped = true;
      clearInterval(heartbeat);
      clearTimeout(trailing);
    },
  };
}

/** The last non-empty line of a cell's text so far, shortened. */
export function lastLineOf(text: string): string {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line !== "") {
      return line.length > MESSAGE_LINE_CHARS ? `${line.slice(0, MESSAGE_LINE_CHARS - 1)}…` : line;
    }
  }
  return "";
}
