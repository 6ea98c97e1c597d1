import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type SanitizeOptions, StreamSanitizer, sanitizeText } from "../../../src/output/streams/sanitize.js";

/** Feeds `parts` through a streaming sanitiser, with or without the block fast path, and joins the lines. */
function streamed(parts: string[], options: SanitizeOptions = {}, useBlocks = true, isPlain = false): string {
  const lines: string[] = [];
  const sanitizer = new StreamSanitizer(
    (line) => lines.push(line),
    options,
    useBlocks ? (block) => lines.push(...block.slice(0, -1).split("\n")) : undefined,
  );
  for (const part of parts) sanitizer.push(part, isPlain && /^[\t\n\x20-\x7e]*$/.test(part));
  sanitizer.end();
  return lines.join("\n");
}

/** `text` cut at the given offsets (clamped to its length, duplicates ignored), empty pieces included. */
function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
  return points
    .map((point, i) => text.slice(points[i - 1] ?? 0, point))
    .concat(text.slice(points.at(-1) ?? 0));
}

describe("sanitizeText", () => {
  it("normalises CRLF line endings to LF", () => {
    expect(sanitizeText("a\r\nb\r\n")).toBe("a\nb\n");
  });

  it("collapses carriage-return progress rewrites to the final state of each line", () => {
    const progress = "\r  0%|          |\r 50%|#####     |\r100%|##########|\ndone\n";
    expect(sanitizeText(progress)).toBe("100%|##########|\ndone\n");
  });

  it("keeps the last visible text when a line ends with a bare carriage return", () => {
    expect(sanitizeText("step 3/3\r")).toBe("step 3/3");
    expect(sanitizeText("loading\r\x1b[Kready\n")).toBe("ready\n");
    expect(sanitizeText("working...\r\x1b[K\nnext\n")).toBe("working...\nnext\n");
  });

  it("strips CSI colour codes, OSC titles and hyperlinks, and other escape sequences", () => {
    const text =
      "\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ \x1b(Bcharset\x1b=\x1b7ok\n";
    expect(sanitizeText(text)).toBe("red link charsetok\n");
  });

  it("keeps escape sequences when asked to", () => {
    expect(sanitizeText("\x1b[32mgreen\x1b[0m\n", { keepAnsi: true })).toBe("\x1b[32mgreen\x1b[0m\n");
  });

  it("shows other control characters as visible control pictures, or removes them on request", () => {
    expect(sanitizeText("bell\x07 nul\x00 del\x7f esc\x1b\ttab\tok\n")).toBe(
      "bell␇ nul␀ del␡ esc␛\ttab\tok\n",
    );
    expect(sanitizeText("bell\x07 c1\x85!\n")).toBe("bell␇ c1\ufffd!\n");
    expect(sanitizeText("bell\x07 nul\x00!\n", { controlChars: "remove" })).toBe("bell nul!\n");
  });

  it("maps lone surrogates (undecodable bytes) to U+FFFD and keeps real surrogate pairs", () => {
    expect(sanitizeText("bad \udcff byte, emoji 😀\n")).toBe("bad \ufffd byte, emoji 😀\n");
    expect(sanitizeText("lone high \ud83d!")).toBe("lone high \ufffd!");
  });

  it("clamps long lines with a marker saying how much was cut", () => {
    const out = sanitizeText(`${"a".repeat(50)}\nshort\n`, { maxLineChars: 10 });
    expect(out).toBe("aaaaaaaaaa…[+40 chars]\nshort\n");
  });
});

describe("StreamSanitizer", () => {
  it("collapses progress rewrites split across chunk boundaries, even between \\r and the rest", () => {
    expect(streamed(["10%", "\r", "20%\r3", "0%", "\r", "\n", "next"])).toBe("30%\nnext");
    expect(streamed(["abc\r", "\n", "def"])).toBe("abc\ndef");
  });

  it("strips an escape sequence split across chunks", () => {
    expect(streamed(["a\x1b", "[3", "1mred\x1b]0;ti", "tle\x1b", "\\b\n"])).toBe("aredb");
  });

  it("does not break a surrogate pair split across chunks", () => {
    const emoji = "😀";
    expect(streamed([`x${emoji[0]}`, `${emoji[1]}y\n`])).toBe(`x${emoji}y`);
  });

  it("drops the rest of a clamped line even when the cut stopped short of a surrogate pair", () => {
    // A cut at 7 would split the third emoji, so 6 units are kept; the later "a" must not fill that room.
    const whole = streamed(["😀a😀a😀a"], { maxLineChars: 7 }, false);
    expect(whole).toBe("😀a😀a…[+3 chars]");
    expect(streamed(["😀\x1b[31ma😀a😀", "a"], { maxLineChars: 7 })).toBe(whole);
  });

  it("gives the same result for any chunking as for the whole text", () => {
    const alphabet = fc.constantFrom(
      "a",
      "b",
      "\n",
      "\r",
      "\r\n",
      "\x1b[31m",
      "\x1b]0;t\x07",
      "\x07",
      "\udcff",
      "😀",
      "\t",
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 6 }),
        (tokens, cuts) => {
          const text = tokens.join("");
          const parts = splitAt(text, cuts);
          const whole = streamed([text], { maxLineChars: 7 }, false);
          expect(streamed(parts, { maxLineChars: 7 })).toBe(whole);
          expect(streamed(parts, { maxLineChars: 7 }, false)).toBe(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("gives the same lines when the caller marks plain chunks, after any chunk that held an escape", () => {
    const alphabet = fc.constantFrom(
      "a",
      "bb",
      "\n",
      "\t",
      " ",
      "\x1b[3",
      "1m",
      "\r",
      "😀"[0] ?? "",
      "x".repeat(9),
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 30 }),
        fc.array(fc.nat(40), { maxLength: 5 }),
        (tokens, cuts) => {
          const text = tokens.join("");
          const parts = splitAt(text, cuts);
          const scanned = streamed(parts, { maxLineChars: 7 });
          expect(streamed(parts, { maxLineChars: 7 }, true, true)).toBe(scanned);
          expect(streamed(parts, { maxLineChars: 7 }, false, true)).toBe(scanned);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("keeps memory per line bounded: a huge line without newline is held clamped", () => {
    const lines: string[] = [];
    const sanitizer = new StreamSanitizer((line) => lines.push(line), { maxLineChars: 100 });
    for (let i = 0; i < 1000; i++) sanitizer.push("x".repeat(10_000));
    expect(sanitizer.peekPendingLine()).toBe(`${"x".repeat(100)}…[+9999900 chars]`);
    sanitizer.end();
    expect(lines).toEqual([`${"x".repeat(100)}…[+9999900 chars]`]);
  });
});
