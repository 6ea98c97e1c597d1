// Text edits at source offsets: applied to a cell in one pass, and the column shifts they leave on each line so
// a stack column of the edited code maps back to the user's own column.

/** Replace `start..end` of the source (an insertion when they are equal) with `text`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** `[line (1-based), original column (0-based), inserted text length, length change]` of one edit. */
export type ColumnShift = [number, number, number, number];

function sortEdits(edits: Edit[]): Edit[] {
  return [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The column shifts of `edits` that stay within one line (an edit whose text holds a newline is left out). */
export function describeShifts(source: string, edits: Edit[]): ColumnShift[] {
  const shifts: ColumnShift[] = [];
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (const edit of sortEdits(edits)) {
    for (; scanned < edit.start; scanned++) {
      if (source.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
    }
    const delta = edit.text.length - (edit.end - edit.start);
    if (delta !== 0 && !edit.text.includes("\n"))
      shifts.push([line, edit.start - lineStart, edit.text.length, delta]);
  }
  return shifts;
}

/** Maps a 1-based column of the rewritten code back to the user's column on the same line. */
export function mapColumn(shifts: ColumnShift[], line: number, column: number): number {
  const generated = column - 1;
  let running = 0;
  for (const [shiftLine, original, inserted, delta] of shifts) {
    if (shiftLine !== line) continue;
    const start = original + running;
    if (generated < start) break;
    if (generated < start + inserted) return original + 1;
    running += delta;
  }
  return generated - running + 1;
}

export function applyEdits(source: string, edits: Edit[]): string {
  const sorted = sortEdits(edits);
  let out = "";
  let cursor = 0;
  for (const edit of sorted) {
    out += source.slice(cursor, edit.start) + edit.text;
    cursor = Math.max(cursor, edit.end);
  }
  return out + source.slice(cursor);
}
