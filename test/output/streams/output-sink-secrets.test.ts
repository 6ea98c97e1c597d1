// Redaction of the model's view after sanitising and across a job's cuts: a secret cannot be reassembled.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOutputSink } from "../../../src/output/streams/output-sink.js";

const SECRET = "sk-live-Zq81xVx9Qk2";
const secrets = [{ name: "OPENAI_API_KEY", value: SECRET }];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-sink-secrets-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function view(chunks: string[]): string {
  const sink = createOutputSink({ artifactDir: dir, secrets });
  for (const chunk of chunks) sink.push(chunk);
  return sink.finish().text;
}

describe("the model's view of a secret split by control sequences", () => {
  it.each([
    ["a colour reset inside it", `key=sk-live-\x1b[0mZq81xVx9Qk2\n`],
    ["a title sequence inside it", `key=sk-live-Zq\x1b]0;t\x0781xVx9Qk2\n`],
    ["an erase-line inside it", `key=sk-\x1b[Klive-Zq81xVx9Qk2\n`],
    ["a carriage-return rewrite that completes it", `key=sk-live-XXXXXXXXXX\rkey=sk-live-Zq81xVx9Qk2\n`],
  ])("is redacted with %s", (_name, text) => {
    const out = view([text]);
    expect(out).toBe("key=[REDACTED:OPENAI_API_KEY]\n");
  });

  it("is redacted when the pieces and the escape arrive in separate chunks among plain lines", () => {
    const out = view(["plain 1\nplain 2\nkey=sk-live-", "\x1b[1m", "Zq81xVx9Qk2\nplain 3\nplain 4\n"]);
    expect(out).toBe("plain 1\nplain 2\nkey=[REDACTED:OPENAI_API_KEY]\nplain 3\nplain 4\n");
  });

  it("is redacted in the live snapshot of an unfinished line", () => {
    const sink = createOutputSink({ artifactDir: dir, secrets });
    sink.push("key=sk-live-\x1b[0mZq81xVx9Qk2 and the line goes on past the redactor's hold");
    expect(sink.snapshot()).not.toContain(SECRET);
    expect(sink.snapshot()).toContain("[REDACTED:OPENAI_API_KEY]");
    sink.finish();
  });
});

describe("a sink cut for a job's return", () => {
  it("keeps a secret's first half for the next stretch, which redacts the whole secret", () => {
    const sink = createOutputSink({ artifactDir: dir, secrets });
    sink.push("epoch 1\nkey=sk-live-Zq");
    const { result, next } = sink.cut();
    expect(result.text).toBe("epoch 1\nkey=");
    next.push("81xVx9Qk2\nepoch 2\n");
    const rest = next.finish();
    expect(rest.text).toBe("[REDACTED:OPENAI_API_KEY]\nepoch 2\n");
    // Bytes are counted once, in the stretch that shows them.
    expect(result.totalBytes + rest.totalBytes).toBe(Buffer.byteLength(`${result.text}${rest.text}`));
  });

  it("hands over ordinary text at once and never splits a character", () => {
    const sink = createOutputSink({ artifactDir: dir, secrets });
    sink.push("loss 0.25 and sk- but not a key ");
    sink.push("smile \ud83d");
    const { result, next } = sink.cut();
    expect(result.text).toBe("loss 0.25 and sk- but not a key smile ");
    next.push("\ude00\n");
    expect(next.finish().text).toBe("\u{1f600}\n");
  });
});

describe("secrets given as a function", () => {
  it("are never read for output shorter than any secret can be", () => {
    let reads = 0;
    const sink = createOutputSink({
      artifactDir: dir,
      secrets: () => {
        reads += 1;
        return secrets;
      },
    });
    sink.push("2\n", true);
    expect(sink.finish().text).toBe("2\n");
    expect(reads).toBe(0);
  });

  it("are read once the text could hold one, and redact it", () => {
    let reads = 0;
    const sink = createOutputSink({
      artifactDir: dir,
      secrets: () => {
        reads += 1;
        return secrets;
      },
    });
    sink.push(`key=${SECRET}\n`, true);
    sink.push(`again ${SECRET}\n`, true);
    expect(sink.finish().text).toBe("key=[REDACTED:OPENAI_API_KEY]\nagain [REDACTED:OPENAI_API_KEY]\n");
    expect(reads).toBe(1);
  });

  it("redact a secret whose first characters came as short plain text before the rest", () => {
    for (const given of [secrets, () => secrets]) {
      const sink = createOutputSink({ artifactDir: dir, secrets: given });
      sink.push("sk-", true);
      sink.push("live-Zq81xVx9Qk2\n", true);
      expect(sink.finish().text).toBe("[REDACTED:OPENAI_API_KEY]\n");
    }
  });
});

describe("secrets read lazily", () => {
  it("give the same view and artifact text as secrets given up front, however the text is cut", () => {
    const piece = fc.constantFrom(
      "sk-",
      "live-",
      "Zq81",
      "xVx9Qk2",
      SECRET,
      "a",
      "\n",
      "ok ",
      "é",
      "\x1b[1m",
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(piece, { maxLength: 6 }).map((parts) => parts.join("")),
            fc.boolean(),
          ),
          { maxLength: 8 },
        ),
        (chunks) => {
          const run = (given: typeof secrets | (() => typeof secrets)) => {
            const sink = createOutputSink({ artifactDir: dir, secrets: given });
            for (const [text, isPlain] of chunks) sink.push(text, isPlain && /^[\x20-\x7e\n\t]*$/.test(text));
            return sink.finish().text;
          };
          const eager = run(secrets);
          expect(run(() => secrets)).toBe(eager);
          expect(eager).not.toContain(SECRET);
        },
      ),
      { numRuns: 300 },
    );
  });
});
