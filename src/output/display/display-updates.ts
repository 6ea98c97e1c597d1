// Display ids and clear_output applied to a cell's outputs, giving what a viewer would show at the end.
import type { CellOutput, KernelOutput, StatusOutput } from "../../contracts/outputs.js";
import { STATUS_MIME } from "../../contracts/outputs.js";

/** A display whose bundle carries the status MIME becomes a status output; anything else is unchanged. */
export function toCellOutput(output: KernelOutput | CellOutput): CellOutput {
  if (output.type !== "display") return output;
  const event = output.data[STATUS_MIME];
  if (event === null || typeof event !== "object" || Array.isArray(event)) return output;
  const op = (event as { op?: unknown }).op;
  const status: StatusOutput = {
    type: "status",
    event: { ...(event as Record<string, unknown>), op: typeof op === "string" ? op : String(op) },
  };
  return status;
}

/** toCellOutput over a list. */
export function toCellOutputs(outputs: readonly (KernelOutput | CellOutput)[]): CellOutput[] {
  return outputs.map(toCellOutput);
}

/**
 * The latest state of a cell's outputs, as Jupyter's output area would show it:
 * - an `update` display replaces the data of every earlier display with its `displayId` (in place); an update
 *   whose display is not among these outputs (shown by an earlier cell, or cleared) is kept as a new display;
 * - `clear_output` removes everything before it; with `wait: true` the removal happens just before the next
 *   output that adds something (updates do not trigger it);
 * - status events are not visual: they are never cleared and never trigger a pending clear.
 */
export function applyDisplayUpdates(outputs: readonly (KernelOutput | CellOutput)[]): CellOutput[] {
  let shown: CellOutput[] = [];
  let clearPending = false;
  const clearVisible = (): void => {
    shown = shown.filter((o) => o.type === "status");
    clearPending = false;
  };
  for (const raw of outputs) {
    const output = toCellOutput(raw);
    if (output.type === "status") {
      shown.push(output);
      continue;
    }
    if (output.type === "clear_output") {
      if (output.wait) clearPending = true;
      else clearVisible();
      continue;
    }
    if ((output.type === "display" || output.type === "result") && output.update && output.displayId) {
      let replaced = false;
      shown = shown.map((o) => {
        if ((o.type !== "display" && o.type !== "result") || o.displayId !== output.displayId) return o;
        replaced = true;
        const next = { ...o, data: output.data };
        if (output.metadata) next.metadata = output.metadata;
        else delete next.metadata;
        return next;
      });
      if (replaced) continue;
      const { update: _update, ...fresh } = output;
      if (clearPending) clearVisible();
      shown.push(fresh);
      continue;
    }
    if (clearPending) clearVisible();
    shown.push(output);
  }
  return shown;
}
