// The plain-stream hint: a raw frame line marked plain always decodes to printable ASCII plus \n and \t.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRunnerFrame, isPlainStreamLine } from "../../../src/kernel/wire/runner-frames.js";

const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** What Python's json (ensure_ascii=True) writes for a string: everything outside space..~ escaped. */
function encodeAscii(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function streamLine(json: string): Buffer {
  return Buffer.from(`{"type":"stdout","id":"k-1","data":${json}}`, "utf8");
}

const alphabet = fc.constantFrom(
  "a",
  "Z",
  " ",
  "~",
  "\n",
  "\t",
  "\r",
  "\b",
  "\f",
  "\x1b",
  "\x00",
  "\x7f",
  "\x85",
  "é",
  "😀",
  "\ud800",
  "\\",
  '"',
  "/",
);

describe("isPlainStreamLine", () => {
  it("marks plain only lines whose text is printable ASCII, \\n and \\t, whichever way the runner encodes", () => {
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), fc.boolean(), (parts, isAsciiEncoder) => {
        const text = parts.join("");
        const line = streamLine(isAsciiEncoder ? encodeAscii(text) : JSON.stringify(text));
        const frame = decodeRunnerFrame(line.toString("utf8"));
        expect(frame).toMatchObject({ type: "stdout", data: text });
        if (isPlainStreamLine(line)) expect(text).toMatch(PLAIN);
        // Text without anything to clean and without backslashes is always recognised.
        if (PLAIN.test(text) && !text.includes("\\")) expect(isPlainStreamLine(line)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("takes a carriage return, an escape sequence or a raw DEL as not plain", () => {
    expect(isPlainStreamLine(streamLine(JSON.stringify("progress 10%\r")))).toBe(false);
    expect(isPlainStreamLine(streamLine(encodeAscii("\x1b[31mred")))).toBe(false);
    expect(isPlainStreamLine(streamLine('"del \x7f"'))).toBe(false);
    expect(isPlainStreamLine(streamLine(JSON.stringify("x = 1\n\tindented\n")))).toBe(true);
  });
});
