// Small pure text helpers the renderers share: line clamping, splitting, collapsing, human figures.

/** Default longest line a renderer shows before clamping it. */
export const DEFAULT_MAX_LINE_CHARS = 4000;

/** The marker appended to a clamped line: `…[+N chars]`. */
export function formatClampMarker(droppedChars: number): string {
  return `…[+${droppedChars} chars]`;
}

/** Cuts `line` to `maxChars` characters (never inside a surrogate pair) and appends the clamp marker. */
export function clampLine(line: string, maxChars: number = DEFAULT_MAX_LINE_CHARS): string {
  if (line.length <= maxChars) return line;
  const cut = cutIndex(line, maxChars);
  return line.slice(0, cut) + formatClampMarker(line.length - cut);
}

/** The first and last `edge` items, with `middle(count)` standing for the ones between (when there are any). */
export function keepEnds<T>(items: readonly T[], edge: number, middle: (count: number) => T): T[] {
  if (items.length <= 2 * edge) return [...items];
  return [...items.slice(0, edge), middle(items.length - 2 * edge), ...items.slice(-edge)];
}

/** Index at or below `at` that does not split a surrogate pair. */
export function cutIndex(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** Splits text into lines; a trailing newline does not produce an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Keeps the first `maxLines` lines of `lines`, reporting how many were hidden. */
export function collapseLines(lines: string[], maxLines: number): { shown: string[]; hiddenLines: number } {
  if (lines.length <= maxLines) return { shown: lines, hiddenLines: 0 };
  return { shown: lines.slice(0, maxLines), hiddenLines: lines.length - maxLines };
}

/** `850 ms`, `1.2 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
}

/** `512 B`, `4.0 KiB`, `5.0 MiB`, `1.0 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Singular or plural noun with its count: `1 line`, `3 lines`. */
export function pluralize(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
