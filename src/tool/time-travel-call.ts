// A call's time travel (docs/checkpoints.md): `restore`/`undo` before its cells, `checkpoint` after them, in words.
import type { CheckpointDetails } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import { formatBytes } from "../session/checkpoint-book.js";
import type { SessionCall } from "../session/session-call.js";
import type { EvalInput } from "./input-schema.js";

/** `{restore}` or `{undo}`: rolls the session's Python state back; the result says to what, or why not. */
export function rollBack(call: SessionCall, input: EvalInput): Promise<CheckpointDetails> {
  return step(call, async (book, notices) => {
    if (input.restore !== undefined) {
      await book.restore(input.restore);
      return book.report({ restored: input.restore, notices });
    }
    const used = await book.undo();
    notices.push(`undone: back to the state before the last call that ran cells (checkpoint "${used}")`);
    return book.report({ restored: used, notices });
  });
}

/** `{checkpoint}` after the cells: taken only when they all ended ok. */
export function takeCheckpoint(call: SessionCall, name: string): Promise<CheckpointDetails> {
  return step(call, async (book, notices) => {
    await book.take(name, notices);
    return book.report({ taken: name, notices });
  });
}

/** The `checkpoint` of a call whose cells did not all end ok. */
export function checkpointNotTaken(name: string): CheckpointDetails {
  return {
    checkpoints: [],
    notices: [],
    error: {
      code: "CHECKPOINT_FAILED",
      message: `checkpoint "${name}" not taken: a cell did not end ok (a checkpoint records only a state reached cleanly)`,
    },
  };
}

async function step(
  call: SessionCall,
  run: Parameters<SessionCall["withCheckpoints"]>[0],
): Promise<CheckpointDetails> {
  try {
    return (await call.withCheckpoints(run)) as CheckpointDetails;
  } catch (err) {
    const code = err instanceof EvalkitError ? err.code : "INTERNAL";
    const message = err instanceof Error ? err.message : String(err);
    return { checkpoints: [], notices: [], error: { code, message } };
  }
}

/** Runs `run` on the call (opened now when there is none); a call that cannot open is reported, not thrown. */
export function withCall(
  openCall: () => SessionCall,
  call: SessionCall | undefined,
  run: (opened: SessionCall) => Promise<CheckpointDetails>,
): Promise<CheckpointDetails> {
  try {
    return run(call ?? openCall());
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof EvalkitError ? err.code : "INTERNAL";
    return Promise.resolve({ checkpoints: [], notices: [], error: { code, message } });
  }
}

/** A call that restored and then took a checkpoint: one report of both. */
export function mergeTravel(before: CheckpointDetails, after: CheckpointDetails): CheckpointDetails {
  const merged: CheckpointDetails = {
    ...before,
    ...after,
    notices: [...before.notices, ...after.notices],
    checkpoints: after.error ? before.checkpoints : after.checkpoints,
  };
  if (before.restored !== undefined) merged.restored = before.restored;
  const error = after.error ?? before.error;
  if (error) merged.error = error;
  else delete merged.error;
  return merged;
}

/** The text a model reads: what happened, the notices, the checkpoints and their memory. */
export function describeCheckpoints(details: CheckpointDetails): string {
  const lines: string[] = [];
  if (details.error) lines.push(`[checkpoints] ${details.error.code}: ${details.error.message}`);
  if (details.restored !== undefined) lines.push(`[checkpoints] restored "${details.restored}"`);
  if (details.taken !== undefined) lines.push(`[checkpoints] took "${details.taken}"`);
  for (const notice of details.notices) lines.push(`[checkpoints] ${notice}`);
  if (details.checkpoints.length > 0 || details.error === undefined) {
    const list = details.checkpoints.map((entry) => {
      const size = entry.privateBytes !== undefined ? ` ${formatBytes(entry.privateBytes)}` : "";
      return `"${entry.name}"${entry.auto ? " (auto)" : ""}${size}`;
    });
    const root =
      details.rootPrivateBytes !== undefined ? `; root ${formatBytes(details.rootPrivateBytes)}` : "";
    lines.push(`[checkpoints] ${list.length > 0 ? list.join(", ") : "none"}${root}`);
  }
  return lines.join("\n");
}
