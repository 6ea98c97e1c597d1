// Cursor positions between the Kernel contract (UTF-16 units, as JS strings count) and Jupyter (code points).

/** Code points in `text.slice(0, end)` (a surrogate pair counts one). */
export function countCodePoints(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < end) i++;
    count++;
  }
  return count;
}

/** The UTF-16 offset of code point `points` in `text`. */
export function toUtf16Offset(text: string, points: number): number {
  let offset = 0;
  for (let seen = 0; seen < points && offset < text.length; seen++) {
    const unit = text.charCodeAt(offset);
    offset += unit >= 0xd800 && unit <= 0xdbff && offset + 1 < text.length ? 2 : 1;
  }
  return offset;
}
