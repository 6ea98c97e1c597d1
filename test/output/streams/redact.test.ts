import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, createStreamRedactor } from "../../../src/output/streams/redact.js";

/** Secrets that overlap each other and themselves, for the property tests against the whole-text redactor. */
const OVERLAPPING = [
  { name: "A", value: "abab" },
  { name: "B", value: "babba" },
  { name: "C", value: "aaaaaa" },
];

const secrets = [
  { name: "API_TOKEN", value: "sk-live-12345" },
  { name: "DB_PASSWORD", value: "p4ss.w*rd(1)" },
];

describe("createRedactor", () => {
  it("replaces every occurrence of each secret by [REDACTED:NAME]", () => {
    const redact = createRedactor(secrets);
    expect(redact("token=sk-live-12345 pw=p4ss.w*rd(1) again sk-live-12345")).toBe(
      "token=[REDACTED:API_TOKEN] pw=[REDACTED:DB_PASSWORD] again [REDACTED:API_TOKEN]",
    );
  });

  it("treats regex special characters in secret values literally", () => {
    const redact = createRedactor([{ name: "X", value: "a.b*c" }]);
    expect(redact("aXbbbc a.b*c")).toBe("aXbbbc [REDACTED:X]");
  });

  it("prefers the longest secret when one value contains another", () => {
    const redact = createRedactor([
      { name: "SHORT", value: "abcd" },
      { name: "LONG", value: "abcdefgh" },
    ]);
    expect(redact("abcdefgh abcd")).toBe("[REDACTED:LONG] [REDACTED:SHORT]");
  });

  it("ignores empty and very short values that would wreck ordinary output", () => {
    const redact = createRedactor([
      { name: "EMPTY", value: "" },
      { name: "FLAG", value: "1" },
    ]);
    expect(redact("1 + 1 = 2")).toBe("1 + 1 = 2");
  });
});

describe("createStreamRedactor", () => {
  it("catches a secret split across two chunks", () => {
    const stream = createStreamRedactor(secrets);
    const out = stream.push("the token is sk-li") + stream.push("ve-12345 ok") + stream.flush();
    expect(out).toBe("the token is [REDACTED:API_TOKEN] ok");
  });

  it("catches a secret split into single characters", () => {
    const stream = createStreamRedactor(secrets);
    let out = "";
    for (const ch of "x p4ss.w*rd(1) y") out += stream.push(ch);
    expect(out + stream.flush()).toBe("x [REDACTED:DB_PASSWORD] y");
  });

  it("produces the same text as the whole-text redactor for any chunking", () => {
    const whole = createRedactor(OVERLAPPING);
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "x"), maxLength: 80 }),
        fc.array(fc.nat(80)),
        (text, cuts) => {
          const stream = createStreamRedactor(OVERLAPPING);
          const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
          let out = "";
          let prev = 0;
          for (const point of points) {
            out += stream.push(text.slice(prev, point));
            prev = point;
          }
          out += stream.push(text.slice(prev)) + stream.flush();
          expect(out).toBe(whole(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("releases at a pause everything but a secret's beginning, which waits for the rest", () => {
    const stream = createStreamRedactor(secrets);
    expect(stream.push("loss 0.12 token sk-li")).toBe("loss 0.12");
    // A job's return: the ordinary text comes out now, the secret's first half does not.
    expect(stream.release()).toBe(" token ");
    expect(stream.release()).toBe("");
    expect(stream.push("ve-12345 ok") + stream.flush()).toBe("[REDACTED:API_TOKEN] ok");
    // A tail that only looked like a beginning is released once the next text shows it is not.
    expect(stream.push("sk-") + stream.release() + stream.push("nope") + stream.flush()).toBe("sk-nope");
  });

  it("produces the same text as the whole-text redactor with pauses anywhere", () => {
    const whole = createRedactor(OVERLAPPING);
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "x"), maxLength: 80 }),
        fc.array(fc.tuple(fc.nat(80), fc.boolean())),
        (text, cuts) => {
          const stream = createStreamRedactor(OVERLAPPING);
          let out = "";
          let prev = 0;
          for (const [at, isPause] of [...cuts].sort((a, b) => a[0] - b[0])) {
            const point = Math.min(at, text.length);
            out += stream.push(text.slice(prev, point));
            if (isPause) out += stream.release();
            prev = point;
          }
          out += stream.push(text.slice(prev)) + stream.flush();
          expect(out).toBe(whole(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("passes text straight through when there are no secrets", () => {
    const stream = createStreamRedactor([]);
    expect(stream.push("abc")).toBe("abc");
    expect(stream.release()).toBe("");
    expect(stream.flush()).toBe("");
  });
});
