// Turns protocol text back into the bytes a program wrote: lone surrogates U+DC80–U+DCFF carry undecodable bytes.

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Encodes `text` as the program's original bytes: lone surrogates U+DC80–U+DCFF become the single bytes
 * 0x80–0xFF (Python's `surrogateescape`), any other lone surrogate becomes U+FFFD, the rest is UTF-8.
 */
export function encodeRawBytes(text: string): Buffer {
  if (!SURROGATE.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    if (code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (i > start) parts.push(Buffer.from(text.slice(start, i), "utf8"));
    parts.push(code >= 0xdc80 && code <= 0xdcff ? Buffer.of(code - 0xdc00) : Buffer.of(0xef, 0xbf, 0xbd));
    start = i + 1;
  }
  if (start < text.length) parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}

const SCRATCH_BYTES = 256 * 1024;
let scratch: Buffer | null = null;

/**
 * Like {@link encodeRawBytes}, but small results live in a shared scratch buffer that the next call overwrites:
 * use the bytes at once (write them) or copy them. Saves an allocation per chunk on the hot path. `isAscii`: the
 * caller knows every character is below 0x80 (the bytes are then a plain copy).
 */
export function encodeRawBytesTransient(text: string, isAscii = false): Buffer {
  if (isAscii) {
    // One byte per character: latin1 is a plain copy, and no scan for surrogates is needed.
    if (text.length > SCRATCH_BYTES) return Buffer.from(text, "latin1");
    scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
    const written = scratch.write(text, 0, text.length, "latin1");
    return scratch.subarray(0, written);
  }
  if (SURROGATE.test(text) || text.length > SCRATCH_BYTES) return encodeRawBytes(text);
  const length = Buffer.byteLength(text, "utf8");
  if (length > SCRATCH_BYTES) return Buffer.from(text, "utf8");
  scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
  scratch.write(text, 0, length, "utf8");
  return scratch.subarray(0, length);
}

/** Decodes bytes the way the protocol carries them: invalid UTF-8 bytes become U+DC80–U+DCFF. */
export function decodeRawBytes(bytes: Uint8Array): string {
  const strict = tryDecodeStrict(bytes);
  if (strict !== null) return strict;
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceLength(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i++;
    } else {
      out += Buffer.from(bytes.subarray(i, i + length)).toString("utf8");
      i += length;
    }
  }
  return out;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

function tryDecodeStrict(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there cannot start one. */
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  let length: number;
  let min: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) [length, min] = [2, 0x80];
  else if (b0 >= 0xe0 && b0 <= 0xef) [length, min] = [3, 0x800];
  else if (b0 >= 0xf0 && b0 <= 0xf4) [length, min] = [4, 0x10000];
  else return 0;
  if (i + length > bytes.length) return 0;
  let cp = b0 & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) {
    const b = bytes[i + k]!;
    if ((b & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return length;
}

/** True when the last UTF-16 unit of `text` is a high surrogate whose partner may arrive in the next chunk. */
export function endsWithHighSurrogate(text: string): boolean {
  const code = text.charCodeAt(text.length - 1);
  return code >= 0xd800 && code <= 0xdbff;
}
