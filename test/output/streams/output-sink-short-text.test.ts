// Short plain text skips the sink's machinery: the result must be exactly what the machinery gives.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createOutputSink,
  type OutputSinkOptions,
  type OutputSinkResult,
} from "../../../src/output/streams/output-sink.js";

// A secret that plain text never contains: the sink then builds its machinery from the first chunk, and redacts
// nothing, so its result is the reference for the same text.
const NEVER_SEEN = [{ name: "NEVER", value: "\u0001\u0002\u0003\u0004never" }];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-short-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(chunks: Array<[string, boolean]>, options: OutputSinkOptions): OutputSinkResult {
  const sink = createOutputSink({ artifactDir: dir, ...options });
  for (const [text, isPlain] of chunks) sink.push(text, isPlain);
  // Artifact ids are random: two sinks given the same text differ only there.
  return JSON.parse(JSON.stringify(sink.finish()).replace(/artifact:\/\/[\w-]+/g, "artifact://ID"));
}

const plainChar = fc.constantFrom("a", "Z", "0", " ", "~", "\n", "\n", "\t", '"', "\\");
const anyChar = fc.constantFrom("a", "\n", "\r", "\u001b[1m", "\u0007", "é", "\ud83d\ude00", "\t", "x");
const chunks = (char: fc.Arbitrary<string>, maxLength: number) =>
  fc.array(
    fc.tuple(
      fc.array(char, { maxLength }).map((parts) => parts.join("")),
      fc.boolean(),
    ),
    { maxLength: 8 },
  );

describe("OutputSink with short text", () => {
  it("gives the same result for short plain text as the full machinery does", () => {
    fc.assert(
      fc.property(chunks(plainChar, 300), (input) => {
        // The plain hint is only ever given for text that is plain: keep it honest.
        const honest = input.map(
          ([text, hint]) => [text, hint && /^[\x20-\x7e\n\t]*$/.test(text)] as [string, boolean],
        );
        expect(run(honest, {})).toEqual(run(honest, { secrets: NEVER_SEEN }));
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same result when text that is not plain or not short follows", () => {
    fc.assert(
      fc.property(chunks(anyChar, 900), fc.integer({ min: 1, max: 4000 }), (input, maxLineChars) => {
        const options = { maxLineChars, headBytes: 1500, tailBytes: 1500 };
        const honest = input.map(([text]) => [text, false] as [string, boolean]);
        expect(run(honest, options)).toEqual(run(honest, { ...options, secrets: NEVER_SEEN }));
      }),
      { numRuns: 300 },
    );
  });

  it("shows a short printed line as it is and writes no artifact", () => {
    const result = run(
      [
        ["2", false],
        ["\nhello\tworld\n", true],
      ],
      {},
    );
    expect(result).toEqual({
      text: "2\nhello\tworld\n",
      totalBytes: 14,
      totalLines: 2,
      omittedLines: 0,
      omittedBytes: 0,
      clampedLines: 0,
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("still redacts a secret in short text", () => {
    const result = run([["key=sk-abcdef123456\n", true]], {
      secrets: [{ name: "API_KEY", value: "sk-abcdef123456" }],
    });
    expect(result.text).toBe("key=[REDACTED:API_KEY]\n");
  });

  it("keeps the live view and a job's cut of short text", () => {
    const sink = createOutputSink({ artifactDir: dir });
    sink.push("partial");
    expect(sink.snapshot()).toBe("partial");
    sink.push(" line\n");
    const { result, next } = sink.cut();
    expect(result.text).toBe("partial line\n");
    next.push("after\n");
    expect(next.finish().text).toBe("after\n");
  });
});
