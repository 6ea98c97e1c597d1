// The guard for kernel values: depth cut without recursion, untouched values not copied, unencodable replies named.
import { describe, expect, it } from "vitest";
import {
  boundDepth,
  MAX_VALUE_DEPTH,
  TOO_DEEP_MARKER,
  whyNotEncodable,
} from "../../src/contracts/kernel-values.js";
import { decodeRunnerFrame, decodeRunnerFrameObject } from "../../src/kernel/wire/runner-frames.js";
import { redactDeep } from "../../src/tool/details-redaction.js";

function nested(depth: number): unknown[] {
  const root: unknown[] = [];
  let node = root;
  for (let i = 1; i < depth; i++) {
    const next: unknown[] = [];
    node.push(next);
    node = next;
  }
  return root;
}

function levelsOf(value: unknown): { levels: number; bottom: unknown } {
  let levels = 0;
  let node = value;
  while (Array.isArray(node)) {
    levels++;
    node = node[0];
  }
  return { levels, bottom: node };
}

describe("boundDepth", () => {
  it("returns a value within the bound itself, not a copy", () => {
    const value = { a: [1, { b: "x" }] };
    expect(boundDepth(value)).toBe(value);
  });

  it("cuts a value 200,000 levels deep at the bound without overflowing the stack", () => {
    const { levels, bottom } = levelsOf(boundDepth(nested(200_000)));
    expect(levels).toBe(MAX_VALUE_DEPTH);
    expect(bottom).toBe(TOO_DEEP_MARKER);
  });
});

describe("whyNotEncodable", () => {
  it("accepts plain data and names a BigInt, a cycle and excessive depth", () => {
    expect(whyNotEncodable({ a: [1, "x", null] })).toBeUndefined();
    expect(whyNotEncodable(undefined)).toBeUndefined();
    expect(whyNotEncodable({ n: 1n })).toMatch(/BigInt/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(whyNotEncodable(cycle)).toMatch(/refers to itself/);
    expect(whyNotEncodable(nested(5000))).toMatch(/deeper than 100/);
  });

  it("names a value whose toJSON throws", () => {
    expect(
      whyNotEncodable({
        toJSON() {
          throw new Error("no");
        },
      }),
    ).toBe("no");
  });
});

describe("frames carrying deep values", () => {
  const deepLine = `{"type":"display","id":"c1","bundle":{"text/plain":"x"},"metadata":{"deep":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;

  it("decodes a display line with 100,000-deep metadata into a bounded frame", () => {
    const frame = decodeRunnerFrame(deepLine);
    expect(frame.type).toBe("display");
    if (frame.type !== "display") return;
    expect(levelsOf(frame.metadata?.deep).bottom).toBe(TOO_DEEP_MARKER);
  });

  it("decodes an error frame whose evalue and traceback are nested arrays without overflowing the stack", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const frame = decodeRunnerFrame(
      `{"type":"error","id":"c1","ename":"E","evalue":${deep},"traceback":["line",${deep}]}`,
    );
    if (frame.type !== "error") throw new Error("not an error frame");
    expect(frame.evalue).toContain(TOO_DEEP_MARKER);
    expect(frame.traceback[0]).toBe("line");
    expect(frame.traceback[1]).toContain(TOO_DEEP_MARKER);
  });

  it("bounds a frame the JS kernel decoded already, and a call's params", () => {
    const frame = decodeRunnerFrameObject({
      type: "call",
      id: "c1",
      callId: "k1",
      method: "tool",
      params: { args: { v: nested(100_000) } },
    });
    if (frame.type !== "call") throw new Error("not a call");
    const args = frame.params.args as { v: unknown };
    expect(levelsOf(args.v).bottom).toBe(TOO_DEEP_MARKER);
  });

  it("redacts a deep value reaching details without overflowing the stack", () => {
    const out = redactDeep({ v: nested(100_000) }, (text) => text.replaceAll("x", "_")) as { v: unknown };
    expect(levelsOf(out.v).bottom).toBe(TOO_DEEP_MARKER);
  });
});
