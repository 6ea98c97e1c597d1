// The byte-level stream decoder: whenever it answers, JSON.parse gives the same frame and the text is plain.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePlainStreamLine } from "../../../src/kernel/wire/plain-stream-line.js";
import { decodeRunnerFrame, isPlainStreamLine } from "../../../src/kernel/wire/runner-frames.js";

const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** What the Python runner writes for a string (ensure_ascii): everything outside space..~ escaped. */
function encodeAscii(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const plainAlphabet = fc.constantFrom("a", "Z", " ", "~", "{", "\n", "\t");
const alphabet = fc.constantFrom(
  "a",
  "Z",
  " ",
  "~",
  "{",
  "\n",
  "\t",
  "\r",
  "\x1b",
  "\x00",
  "\x7f",
  "é",
  "\\",
  '"',
);

/** JSON.parse's answer for a line, or "invalid" when it is not a frame. */
function viaJson(line: Buffer): unknown {
  try {
    return decodeRunnerFrame(line.toString("utf8"));
  } catch {
    return "invalid";
  }
}

describe("decodePlainStreamLine", () => {
  it("decodes the runner's lines of plain text, each escape included, as JSON.parse does", () => {
    const data = `${"x".repeat(1023)}\n\tcol\n`.repeat(40);
    for (const type of ["stdout", "stderr"] as const) {
      const line = Buffer.from(`{"type":"${type}","id":"k12-3","data":${encodeAscii(data)}}`);
      expect(isPlainStreamLine(line)).toBe(true);
      expect(decodePlainStreamLine(line)).toEqual({ type, id: "k12-3", data });
    }
  });

  it("never disagrees with JSON.parse, and answers only for plain text, whatever the bytes", () => {
    let answered = 0;
    fc.assert(
      fc.property(
        fc.oneof(fc.array(plainAlphabet, { maxLength: 60 }), fc.array(alphabet, { maxLength: 60 })),
        fc.constantFrom("k1-1", 'k"1', "k\\1", "x"),
        fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }))),
        (parts, id, damage) => {
          const text = parts.join("");
          const bytes = Buffer.from(
            `{"type":"stdout","id":${JSON.stringify(id)},"data":${encodeAscii(text)}}`,
          );
          if (damage !== null) bytes[damage[0] % bytes.length] = damage[1]; // a hostile or broken runner
          const original = Buffer.from(bytes);
          const fast = decodePlainStreamLine(bytes); // may rewrite the bytes it decodes
          if (fast === undefined) {
            expect(bytes.equals(original)).toBe(true); // JSON.parse gets the line as it came
            return;
          }
          answered++;
          expect(viaJson(original)).toEqual(fast);
          expect(fast.data).toMatch(PLAIN);
          expect(isPlainStreamLine(original)).toBe(true);
        },
      ),
      { numRuns: 5000 },
    );
    expect(answered).toBeGreaterThan(200); // the fast path is exercised, not only the fallbacks
  });

  it("leaves raw control bytes, escaped quotes and other frame shapes to JSON.parse", () => {
    const raw = Buffer.from('{"type":"stdout","id":"k1","data":"a\x1bb"}', "latin1");
    expect(decodePlainStreamLine(raw)).toBeUndefined();
    expect(viaJson(raw)).toBe("invalid");
    expect(
      decodePlainStreamLine(Buffer.from('{"type":"stdout","id":"k1","data":"say \\"hi\\""}')),
    ).toBeUndefined();
    expect(decodePlainStreamLine(Buffer.from('{"type":"stdout","id":"k1","data":"end\\"}'))).toBeUndefined();
    expect(decodePlainStreamLine(Buffer.from('{"type":"display","id":"k1","data":"x"}'))).toBeUndefined();
    expect(decodePlainStreamLine(Buffer.from('{"type":"stdout","data":"x","id":"k1"}'))).toBeUndefined();
    // A control byte at every alignment of the word-wise scan.
    for (let at = 0; at < 12; at++) {
      const text = Buffer.from("y".repeat(40), "latin1");
      text[at + 20] = 0x07;
      const line = Buffer.concat([
        Buffer.from('{"type":"stdout","id":"k1","data":"'),
        text,
        Buffer.from('"}'),
      ]);
      for (let shift = 0; shift < 4; shift++) {
        const memory = Buffer.alloc(line.length + shift);
        line.copy(memory, shift);
        expect(decodePlainStreamLine(memory.subarray(shift))).toBeUndefined();
        memory[shift + line.indexOf(0x07)] = 0x79;
        expect(decodePlainStreamLine(memory.subarray(shift))?.data).toBe("y".repeat(40));
      }
    }
  });
});
