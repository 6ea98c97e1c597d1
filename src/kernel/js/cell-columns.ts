// Where the cell rewrite moved columns, per cell file name, so stack lines point at the user's own columns.
import { type ColumnShift, mapColumn } from "./source-edits.js";

const MAX_REMEMBERED_CELLS = 2000;

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
