// Routes one frame from a runtime to where it belongs: a pending reply, the running cell, a late call of an
// ended cell, or the output kept between cells.
import type { ExecuteOutcome } from "../kernel.js";
import type { ReplyRequests } from "./reply-requests.js";
import { type CellHost, outputOfFrame, type RunningCell } from "./running-cell.js";
import type { CellFrame, RuntimeDescription } from "./runtime-description.js";
import type { StrayOutput } from "./stray-output.js";

/** What routing a frame needs from the kernel client. */
export interface FrameRoute {
  readonly runtime: RuntimeDescription;
  readonly replies: ReplyRequests;
  readonly stray: StrayOutput | undefined;
  readonly cellHost: CellHost;
  /** The running cell has its outcome: the client forgets the cell and settles it. */
  endCell(outcome: ExecuteOutcome): void;
}

/** Hands `frame` to its reply, the running `cell` or the stray output; answers calls of cells that ended. */
export function routeFrame(
  frame: CellFrame,
  isPlain: boolean,
  cell: RunningCell | undefined,
  route: FrameRoute,
): void {
  switch (frame.type) {
    case "complete_reply":
      route.replies.answerComplete(frame.id, { start: frame.start, matches: frame.matches });
      return;
    case "is_complete_reply":
      route.replies.answerIsComplete(frame.id, { status: frame.status, indent: frame.indent });
      return;
    case "unknown":
      route.runtime.onUnknownFrame?.(frame.raw);
      return;
    case "protocol_error":
      return;
  }
  // Runtimes that name each frame's cell drop late frames of an ended one. Where output between cells is kept
  // (JS: its streams carry no cell id), everything but an outcome goes to the running cell; `done` must name it.
  const isThisCell =
    cell !== undefined && (frame.id === cell.id || (route.stray !== undefined && frame.type !== "done"));
  if (isThisCell) {
    const outcome = cell.take(frame, isPlain);
    if (outcome !== undefined) route.endCell(outcome);
    return;
  }
  if (frame.type === "call") {
    // A thread of a finished cell is waiting on this call: answer, or it waits forever.
    route.cellHost.send({
      type: "reply",
      callId: frame.callId,
      ok: false,
      error: { name: "CellEnded", message: `${frame.method}() was called after its cell ended` },
    });
    return;
  }
  if (route.stray !== undefined) {
    const output = outputOfFrame(frame, isPlain, route.cellHost.mapTraceback);
    if (output !== undefined) route.stray.keep(output);
  }
}
