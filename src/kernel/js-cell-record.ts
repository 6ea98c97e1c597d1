// What the host keeps about a running JS cell: its outputs (with bounded stream retention) and stack columns.
import type { CellErrorInfo, KernelOutput } from "../contracts/outputs.js";
import { type ColumnShift, mapColumn } from "./js-rewrite.js";
import type { ExecuteOptions, ExecuteOutcome } from "./kernel.js";

/** A cell between `exec` and `done`. */
export interface RunningCell {
  id: string;
  options: ExecuteOptions;
  outputs: KernelOutput[];
  retainedStreamBytes: number;
  outputsTruncated: boolean;
  error?: CellErrorInfo;
  executionCount: number | null;
  startedAt: number;
  calls: AbortController;
  escalation?: NodeJS.Timeout;
  resolve: (outcome: ExecuteOutcome) => void;
  reject: (err: Error) => void;
}

const MAX_REMEMBERED_CELLS = 2000;

/** Passes an output on and keeps it; stream text past `retainLimit` only reaches `onOutput`. */
export function recordOutput(cell: RunningCell, output: KernelOutput, retainLimit: number): void {
  if (output.type === "error")
    cell.error = { ename: output.ename, evalue: output.evalue, traceback: output.traceback };
  cell.options.onOutput?.(output);
  if (output.type !== "stream") {
    cell.outputs.push(output);
    return;
  }
  cell.retainedStreamBytes += output.text.length;
  if (cell.retainedStreamBytes > retainLimit) {
    cell.outputsTruncated = true;
    return;
  }
  const last = cell.outputs[cell.outputs.length - 1];
  if (last?.type === "stream" && last.name === output.name) last.text += output.text;
  else cell.outputs.push({ ...output });
}

/** Per cell file name, where the rewrite moved columns; a function from cell 3 can fail in cell 9. */
export class CellColumnMap {
  private readonly shifts = new Map<string, ColumnShift[]>();

  remember(filename: string, shifts: ColumnShift[]): void {
    this.shifts.delete(filename);
    if (shifts.length > 0) this.shifts.set(filename, shifts);
    if (this.shifts.size > MAX_REMEMBERED_CELLS) {
      const oldest = this.shifts.keys().next().value;
      if (oldest !== undefined) this.shifts.delete(oldest);
    }
  }

  /** Rewrites `<cell N>:line:col` in stack lines to the user's own columns. */
  map(traceback: string[]): string[] {
    return traceback.map((line) =>
      line.replace(/(<cell(?: \d+)?>):(\d+):(\d+)/g, (whole, file: string, row: string, col: string) => {
        const shifts = this.shifts.get(file);
        return shifts ? `${file}:${row}:${mapColumn(shifts, Number(row), Number(col))}` : whole;
      }),
    );
  }
}
