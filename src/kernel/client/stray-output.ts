// Output a JS kernel produces between cells (timers, late rejections), kept within a bound for the next cell.
import type { KernelOutput } from "../../contracts/outputs.js";
import { outputSize } from "../../output/display/display-budget.js";
import type { CellRecord } from "./cell-record.js";

/** Output produced between cells waits for the next cell up to this many characters. */
export const STRAY_LIMIT_CHARS = 256 * 1024;

/** Nobody listens between cells: like Python's pending output, what comes then goes to the next cell. */
export class StrayOutput {
  private readonly outputs: KernelOutput[] = [];
  private chars = 0;
  private dropped = 0;

  keep(output: KernelOutput): void {
    // Displays count by their data, so a timer that displays large images between cells is bounded too.
    const size = output.type === "stream" ? output.text.length : Math.max(1024, outputSize(output));
    if (this.chars + size > STRAY_LIMIT_CHARS) {
      this.dropped += size;
      return;
    }
    this.chars += size;
    this.outputs.push(output);
  }

  /** Hands what was kept to the cell that starts now, and starts over. */
  moveInto(record: CellRecord): void {
    if (this.dropped > 0) {
      // Before what was kept: a flood between cells is capped, never silent.
      const dropped = this.dropped.toLocaleString("en-US");
      const limit = STRAY_LIMIT_CHARS.toLocaleString("en-US");
      record.add({
        type: "stream",
        name: "stderr",
        text: `evalkit: ${dropped} characters of output produced between cells were dropped; the first ${limit} are kept below\n`,
      });
    }
    for (const output of this.outputs.splice(0)) record.add(output);
    this.chars = 0;
    this.dropped = 0;
  }
}
