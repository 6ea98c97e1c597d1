// Keeps a cell's non-stream outputs within a DisplayBudget without losing the final state: past the budget an
// update is applied in place to the display it updates, and a clear_output drops what it hides.
import { type CellOutput, type KernelOutput, STATUS_MIME } from "../../contracts/outputs.js";
import { DisplayBudget, outputSize } from "./display-budget.js";

type Retained = KernelOutput | CellOutput;

/** The retained outputs of one cell: `keep()` each non-stream output in order; streams are pushed by the caller. */
export class DisplayRetention<T extends Retained> {
  constructor(
    readonly outputs: T[],
    readonly budget: DisplayBudget = new DisplayBudget(),
  ) {}

  /** Keeps `output` when it fits; otherwise folds it into what is kept (updates, clears) or counts it dropped. */
  keep(output: T): void {
    const size = outputSize(output);
    if (this.budget.admit(output, size)) {
      this.outputs.push(output);
      return;
    }
    const o: Retained = output;
    if ((o.type === "display" || o.type === "result") && o.displayId) {
      if (o.update && this.applyInPlace(o.displayId, o.data, o.metadata, size)) return;
      // A display that later updates may target: keep a small stand-in in its place, so the final state
      // still shows that it is there (and updates can land on it).
      if (this.budget.hasCountRoom()) {
        const { update: _update, ...fresh } = o;
        const standIn = { ...fresh, data: standInData(o.displayId, size) };
        delete standIn.metadata;
        this.budget.admitStandIn(outputSize(standIn));
        this.outputs.push(standIn as T);
      }
      return;
    }
    if (o.type === "clear_output" && !o.wait) this.compact(output);
  }

  /** The newest kept display with the same id takes the update's data (so the final state stays right). */
  private applyInPlace(
    displayId: string,
    data: Record<string, unknown>,
    metadata: Record<string, unknown> | undefined,
    size: number,
  ): boolean {
    for (let i = this.outputs.length - 1; i >= 0; i--) {
      const kept: Retained = this.outputs[i]!;
      if ((kept.type !== "display" && kept.type !== "result") || kept.displayId !== displayId) continue;
      const keptSize = outputSize(kept);
      // Even in place, the latest data must fit: past the budget the display shows a stand-in that says so.
      const fits = this.budget.hasRoom(size - keptSize);
      const next = { ...kept, data: fits ? data : standInData(displayId, size) };
      if (metadata && fits) next.metadata = metadata;
      else delete next.metadata;
      this.budget.replace(keptSize, fits ? size : outputSize(next));
      this.outputs[i] = next as T;
      return true;
    }
    return false;
  }

  /** A clear_output hides everything before it but status events: drop those outputs to make room for it. */
  private compact(clear: T): void {
    let removed = 0;
    let removedSize = 0;
    let write = 0;
    for (const kept of this.outputs) {
      const isStatus = kept.type === "status" || (kept.type === "display" && isStatusBundle(kept.data));
      if (isStatus) {
        this.outputs[write++] = kept;
        continue;
      }
      if (kept.type === "stream") continue; // streams are bounded by their caller, not by this budget
      removed++;
      removedSize += outputSize(kept);
    }
    this.outputs.length = write;
    this.budget.forget(removed, removedSize);
    this.budget.admit(clear);
    this.outputs.push(clear);
  }
}

function isStatusBundle(data: Record<string, unknown>): boolean {
  return STATUS_MIME in data;
}

/** What a display past the budget shows in `details.outputs` and in the final state. */
function standInData(displayId: string, size: number): Record<string, unknown> {
  return {
    "text/plain": `[display ${JSON.stringify(displayId)}: ${size.toLocaleString("en-US")} characters past the cell's display budget; the cell's artifact has it as shown]`,
  };
}
