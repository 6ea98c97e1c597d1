// ANSI escape sequence grammar shared by the sanitiser (model view) and the terminal renderers.

/**
 * One complete escape sequence: CSI (`ESC [ … final`), string sequences (OSC/DCS/SOS/PM/APC ended by BEL or
 * `ESC \`), nF escapes (`ESC ( B`), two-character escapes, and the 8-bit CSI (`\x9b … final`).
 * The two-character form excludes the introducers of the longer forms so an unfinished CSI/OSC is never
 * mistaken for a complete short escape.
 */
export const ANSI_SEQUENCE_SOURCE =
  "\\x1b\\[[0-?]*[ -/]*[@-~]" +
  "|\\x1b[\\]PX^_][^\\x07\\x1b\\n]*(?:\\x07|\\x1b\\\\)" +
  "|\\x1b[ -/]+[0-~]" +
  "|\\x1b[0-9:;<=>?@A-OQ-WYZ\\\\`a-~]" +
  "|\\x9b[0-?]*[ -/]*[@-~]";

/** Matches an escape sequence that has started at the end of a text but not finished yet. */
export const ANSI_UNFINISHED_TAIL = /\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b\n]*\x1b?|[ -/]*)?$/;

const ANSI_GLOBAL = new RegExp(ANSI_SEQUENCE_SOURCE, "g");

/** Removes every complete ANSI escape sequence from `text`. */
export function stripAnsi(text: string): string {
  if (text.indexOf("\x1b") === -1 && text.indexOf("\x9b") === -1) return text;
  return text.replace(ANSI_GLOBAL, "");
}

/** True when `text` contains an ANSI escape sequence. */
export function hasAnsi(text: string): boolean {
  ANSI_GLOBAL.lastIndex = 0;
  return ANSI_GLOBAL.test(text);
}
