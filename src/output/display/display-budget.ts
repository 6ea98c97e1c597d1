// How many displays (and how many bytes of them) one cell keeps in memory: past the budget a display still reaches
// the live view, the model's text and the artifact, but is only counted where outputs are retained.
import type { CellOutput, KernelOutput } from "../../contracts/outputs.js";
import { pluralize } from "../../text/text-lines.js";

/** Display data kept per cell, in UTF-16 characters of its strings (about bytes for ASCII and base64): 32 MiB. */
export const DEFAULT_DISPLAY_BUDGET_CHARS = 32 * 1024 * 1024;
/** Displays (and display updates) kept per cell. */
export const DEFAULT_MAX_DISPLAYS = 10_000;

/** Size of a value as held in memory, approximately: its strings' lengths plus a little per other value. */
export function valueSize(value: unknown, depth = 0): number {
  if (typeof value === "string") return value.length;
  if (value === null || typeof value !== "object") return 8;
  if (depth > 64) return 8;
  let size = 16;
  if (Array.isArray(value)) for (const item of value) size += valueSize(item, depth + 1);
  else {
    // Object.keys, not Object.entries: the same keys in the same order without an array per property.
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) size += key.length + valueSize(record[key], depth + 1);
  }
  return size;
}

/** The size of a non-stream output for the budget (an error's traceback included). */
export function outputSize(output: KernelOutput | CellOutput): number {
  switch (output.type) {
    case "display":
    case "result":
      return valueSize(output.data) + (output.metadata ? valueSize(output.metadata) : 0);
    case "stream":
      return output.text.length;
    default:
      return valueSize(output);
  }
}

/** Admits outputs while a cell's count and size budgets last, and counts what it turns away. */
export class DisplayBudget {
  private count = 0;
  private chars = 0;
  /** Outputs turned away. */
  dropped = 0;
  /** Their size (characters). */
  droppedChars = 0;

  constructor(
    readonly maxChars = DEFAULT_DISPLAY_BUDGET_CHARS,
    readonly maxCount = DEFAULT_MAX_DISPLAYS,
  ) {}

  /** True when the output fits (and is now counted); false when it does not (and is counted as dropped). */
  admit(output: KernelOutput | CellOutput, size = outputSize(output)): boolean {
    if (this.count + 1 > this.maxCount || this.chars + size > this.maxChars) {
      this.dropped++;
      this.droppedChars += size;
      return false;
    }
    this.count++;
    this.chars += size;
    return true;
  }

  /** True when `size` more characters would still be within the size budget. */
  hasRoom(size: number): boolean {
    return this.chars + size <= this.maxChars;
  }

  /** True when one more output would still be within the count budget. */
  hasCountRoom(): boolean {
    return this.count + 1 <= this.maxCount;
  }

  /** Counts a small stand-in kept for a dropped output (it takes a place, not the output's size). */
  admitStandIn(size: number): void {
    this.count++;
    this.chars += size;
  }

  /** Swaps the size of a kept output for that of its replacement (an update applied in place). */
  replace(oldSize: number, newSize: number): void {
    this.chars = Math.max(0, this.chars - oldSize + newSize);
  }

  /** Forgets kept outputs that were removed (a clear_output compacted the list). */
  forget(count: number, size: number): void {
    this.count = Math.max(0, this.count - count);
    this.chars = Math.max(0, this.chars - size);
  }

  /** One sentence on what was dropped, or undefined when nothing was. */
  describe(where: string): string | undefined {
    if (this.dropped === 0) return undefined;
    const mib = Math.round(this.maxChars / (1024 * 1024));
    return (
      `${pluralize(this.dropped, "display")} (${formatMiB(this.droppedChars)}) past the per-cell budget of ` +
      `${this.maxCount.toLocaleString("en-US")} displays / ${mib} MiB not kept in ${where}`
    );
  }
}

function formatMiB(chars: number): string {
  return chars >= 1024 * 1024
    ? `${(chars / (1024 * 1024)).toFixed(1)} MiB`
    : `${chars.toLocaleString("en-US")} characters`;
}
