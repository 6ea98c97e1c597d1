// Decodes a cell file the way its interpreter would: a UTF-8 BOM is dropped, and a Python file's PEP 263
// coding line (`# -*- coding: latin-1 -*-`) is honoured.
import { type CellLanguage, toLocalLanguage } from "../contracts/cell-result.js";
import { UsageError } from "./args.js";

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
// PEP 263: a comment on line 1 or 2 matching `coding[:=]\s*([-\w.]+)`.
const CODING_LINE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/** The coding a Python source declares in its first two lines, or undefined. */
export function findDeclaredCoding(bytes: Buffer): string | undefined {
  const head = bytes
    .subarray(0, 1024)
    .toString("latin1")
    .split(/\r\n|\r|\n/, 2);
  for (const line of head) {
    const match = CODING_LINE.exec(line);
    if (match) return match[1];
    if (!/^[ \t\f]*(#.*)?$/.test(line)) break; // PEP 263: line 2 counts only after a comment or blank line 1
  }
  return undefined;
}

/** Source text of a cell file in `language` (JS, or else Python's rules); `label` names the file in errors. */
export function decodeSourceFile(bytes: Buffer, language: CellLanguage, label: string): string {
  const isJs = toLocalLanguage(language) === "js";
  const hasBom = bytes.subarray(0, 3).equals(UTF8_BOM);
  const body = hasBom ? bytes.subarray(3) : bytes;
  // Only Python source declares its encoding (PEP 263 `# -*- coding: ... -*-`); JS source is UTF-8 by definition.
  const coding = !isJs && !hasBom ? findDeclaredCoding(bytes) : undefined;
  if (coding === undefined || /^utf[-_]?8$/i.test(coding)) {
    // Node reads a malformed UTF-8 file with U+FFFD in place; Python refuses it (SyntaxError): each as it would.
    if (isJs) return new TextDecoder("utf-8").decode(body);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {
      // Python refuses such a file too (SyntaxError: Non-UTF-8 code ... but no encoding declared).
      throw new UsageError(
        `${label}: not valid UTF-8; declare its encoding (# -*- coding: latin-1 -*-) or convert it`,
      );
    }
  }
  // Python spells labels loosely (latin-1, latin_1, ISO8859-1); the WHATWG decoder knows latin1, iso-8859-1.
  for (const candidate of [coding, coding.replace(/_/g, "-"), coding.replace(/[-_]/g, "")]) {
    try {
      return new TextDecoder(candidate).decode(bytes);
    } catch {
      // not a label the decoder knows: try the next spelling
    }
  }
  throw new UsageError(`${label}: declares an encoding this host cannot decode: ${coding}`);
}
