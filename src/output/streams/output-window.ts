// The bounded in-memory view of a stream: a head that fills first, then a sliding tail window; counts the rest.
// The tail keeps whole runs of lines (cheap per chunk) and is cut to its exact byte budget only when read.

function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Head and tail of sanitised lines within byte budgets (each line costs its UTF-8 length plus one). */
export class OutputWindow {
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private readonly head: string[] = [];
  private headBytes = 0;
  private isHeadClosed = false;
  /** Runs of complete lines, each ending in `\n`, oldest first. */
  private tailPieces: string[] = [];
  private tailPiecesStart = 0;
  private tailChars = 0;
  /** Every line that ever went to the tail, dropped or not. */
  private tailLines = 0;
  private tailBytes = 0;
  clampedLines = 0;
  /** Called once, when the window first has to drop or clamp something. */
  onFirstLoss: (() => void) | null = null;

  constructor(headBudget: number, tailBudget: number) {
    this.headBudget = headBudget;
    this.tailBudget = tailBudget;
  }

  /** True once a line was clamped or is certain to be dropped. */
  get hasLoss(): boolean {
    return this.clampedLines > 0 || this.isDropping();
  }

  addLine(line: string, droppedChars: number): void {
    if (droppedChars > 0) {
      this.clampedLines++;
      this.notifyLoss();
    }
    if (!this.isHeadClosed) {
      const size = utf8Length(line) + 1;
      if (this.headBytes + size <= this.headBudget) {
        this.head.push(line);
        this.headBytes += size;
        return;
      }
      this.isHeadClosed = true;
    }
    this.pushTail(line + "\n", 1);
  }

  /**
   * Adds complete, clean, unclamped lines: `block` ends with `\n` and holds `lineCount` lines; `isAscii`
   * (known by the caller) saves measuring its UTF-8 length.
   */
  addBlock(block: string, lineCount: number, isAscii = false): void {
    let start = 0;
    let remaining = lineCount;
    while (!this.isHeadClosed && start < block.length) {
      const nl = block.indexOf("\n", start);
      this.addLine(block.slice(start, nl), 0);
      start = nl + 1;
      remaining--;
    }
    if (start < block.length) this.pushTail(start === 0 ? block : block.slice(start), remaining, isAscii);
  }

  private pushTail(piece: string, lineCount: number, isAscii = false): void {
    this.tailPieces.push(piece);
    this.tailChars += piece.length;
    this.tailLines += lineCount;
    this.tailBytes += isAscii ? piece.length : utf8Length(piece);
    // Characters never exceed bytes, so pieces followed by more than a budget of characters can never show.
    let first = this.tailPieces[this.tailPiecesStart]!;
    while (this.tailChars - first.length > this.tailBudget) {
      this.tailChars -= first.length;
      // Let go of the piece now, not at the next compaction: a piece is often a slice that keeps a whole
      // protocol chunk alive, and a few hundred of them surviving every scavenge made GC a third of the host's work.
      this.tailPieces[this.tailPiecesStart] = "";
      this.tailPiecesStart++;
      first = this.tailPieces[this.tailPiecesStart]!;
    }
    if (this.tailPiecesStart > 256 && this.tailPiecesStart * 2 > this.tailPieces.length) {
      this.tailPieces = this.tailPieces.slice(this.tailPiecesStart);
      this.tailPiecesStart = 0;
    }
    if (this.isDropping()) this.notifyLoss();
  }

  private isDropping(): boolean {
    return this.tailBytes > this.tailBudget && this.tailLines > 1;
  }

  /** The tail lines that fit the budget (newest first kept, at least one), with what was left out. */
  private resolveTail(): { lines: string[]; omittedLines: number; omittedBytes: number } {
    const text = this.tailPieces.slice(this.tailPiecesStart).join("");
    const all = text === "" ? [] : text.slice(0, -1).split("\n");
    let keptBytes = 0;
    let from = all.length;
    while (from > 0) {
      const size = utf8Length(all[from - 1]!) + 1;
      if (keptBytes + size > this.tailBudget && from < all.length) break;
      keptBytes += size;
      from--;
    }
    const lines = all.slice(from);
    return { lines, omittedLines: this.tailLines - lines.length, omittedBytes: this.tailBytes - keptBytes };
  }

  /** Lines dropped between head and tail, and their bytes. */
  omitted(): { lines: number; bytes: number } {
    const { omittedLines, omittedBytes } = this.resolveTail();
    return { lines: omittedLines, bytes: omittedBytes };
  }

  /** Head lines, then (when lines were dropped) the notice, then the tail, plus an optional pending line. */
  lines(
    makeNotice: (omittedLines: number, omittedBytes: number) => string,
    pending: string | null,
  ): string[] {
    const tail = this.resolveTail();
    const out = this.head.slice();
    if (tail.omittedLines > 0) out.push(makeNotice(tail.omittedLines, tail.omittedBytes));
    for (const line of tail.lines) out.push(line);
    if (pending !== null) out.push(pending);
    return out;
  }

  private notifyLoss(): void {
    const callback = this.onFirstLoss;
    if (callback === null) return;
    this.onFirstLoss = null;
    callback();
  }
}
