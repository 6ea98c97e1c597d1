// Decodes the common stream frame straight from its bytes: plain ASCII text whose only escapes are \n and \t.
// JSON.parse of a 32 KB line (plus the line's own UTF-8 decode) was the host's largest cost while a cell prints.
import { isAscii } from "node:buffer";

export interface PlainStreamFrame {
  type: "stdout" | "stderr";
  id: string;
  data: string;
}

const STDOUT_HEAD = Buffer.from('{"type":"stdout","id":"', "latin1");
const STDERR_HEAD = Buffer.from('{"type":"stderr","id":"', "latin1");
const HEAD_BYTES = STDOUT_HEAD.length;
const DATA_KEY = Buffer.from('","data":"', "latin1");
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The frame of `line` when it is exactly `{"type":"stdout"|"stderr","id":"…","data":"…"}` as the Python runner
 * writes it, with text that is printable ASCII plus `\n`/`\t` (so the plain hint holds), else undefined: the
 * caller then decodes the line with JSON.parse, which also rejects what is not JSON. Whenever this returns a
 * frame, JSON.parse would have returned the same one.
 */
export function decodePlainStreamLine(line: Buffer): PlainStreamFrame | undefined {
  const end = line.length - 2;
  if (end < HEAD_BYTES + DATA_KEY.length || line[end] !== QUOTE || line[end + 1] !== 0x7d) return undefined;
  let type: "stdout" | "stderr";
  if (STDOUT_HEAD.compare(line, 0, HEAD_BYTES) === 0) type = "stdout";
  else if (STDERR_HEAD.compare(line, 0, HEAD_BYTES) === 0) type = "stderr";
  else return undefined;
  const idEnd = line.indexOf(QUOTE, HEAD_BYTES);
  if (idEnd === -1 || idEnd >= end || !isVerbatim(line, HEAD_BYTES, idEnd)) return undefined;
  const start = idEnd + DATA_KEY.length;
  if (start > end || DATA_KEY.compare(line, idEnd, start) !== 0) return undefined;
  // No byte above 0x7e (non-ASCII, DEL), no quote but the closing one, no raw control byte (not JSON).
  if (!isAscii(line) || line.indexOf(0x7f, start) !== -1 || line.indexOf(QUOTE, start) !== end)
    return undefined;
  if (hasControlByte(line, start, end)) return undefined;
  for (let i = line.indexOf(BACKSLASH, start); i !== -1 && i < end; i = line.indexOf(BACKSLASH, i + 2)) {
    const escaped = line[i + 1];
    if (escaped !== 0x6e && escaped !== 0x74) return undefined; // \" \\ \r \uXXXX …: JSON.parse decodes those
  }
  const data = line.toString("latin1", start, unescapeInPlace(line, start, end));
  return { type, id: line.toString("latin1", HEAD_BYTES, idEnd), data };
}

/**
 * Turns the `\n` and `\t` escapes of line[start, end) into their characters, moving the text down in place
 * (the line is this decoder's to use); returns the new end. The string is then sliced from flat bytes: a
 * string built by replaceAll is a rope that every later search had to flatten first.
 */
function unescapeInPlace(line: Buffer, start: number, end: number): number {
  let to = line.indexOf(BACKSLASH, start);
  if (to === -1 || to >= end) return end;
  let from = to;
  while (from < end) {
    line[to++] = line[from + 1] === 0x6e ? 0x0a : 0x09;
    from += 2;
    let next = line.indexOf(BACKSLASH, from);
    if (next === -1 || next > end) next = end;
    line.copyWithin(to, from, next);
    to += next - from;
    from = next;
  }
  return to;
}

/** Bytes JSON copies as they are: printable ASCII but `"` and `\`. */
function isVerbatim(line: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = line[i]!;
    if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return false;
  }
  return true;
}

/**
 * True when an ASCII range holds a byte below 0x20, tested four bytes at a time: adding 0x60 to a byte below
 * 0x80 sets its top bit exactly when the byte is at least 0x20, without a carry into the next byte. A byte
 * loop over 32 KB took twice as long as the rest of the decode.
 */
function hasControlByte(line: Buffer, start: number, end: number): boolean {
  let i = start;
  const offset = line.byteOffset;
  while (i < end && ((offset + i) & 3) !== 0) {
    if (line[i]! < 0x20) return true;
    i++;
  }
  const words = (end - i) >> 2;
  if (words > 0) {
    const view = new Int32Array(line.buffer, offset + i, words);
    let all = TOP_BITS;
    let w = 0;
    for (; w + 4 <= words; w += 4)
      all &= (view[w]! + LIFT) & (view[w + 1]! + LIFT) & (view[w + 2]! + LIFT) & (view[w + 3]! + LIFT);
    for (; w < words; w++) all &= view[w]! + LIFT;
    if ((all & TOP_BITS) !== TOP_BITS) return true;
    i += words << 2;
  }
  for (; i < end; i++) if (line[i]! < 0x20) return true;
  return false;
}

const LIFT = 0x60606060;
const TOP_BITS = 0x80808080 | 0;
