// The NDJSON line reader yields the same lines however the bytes are chunked, and never throws on bytes.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../../src/errors.js";
import { LineReader } from "../../../src/kernel/wire/line-reader.js";
import { decodeRunnerFrame } from "../../../src/kernel/wire/runner-frames.js";

function splitAt(buffer: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buffer.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(buffer.subarray(start, point));
    start = point;
  }
  pieces.push(buffer.subarray(start));
  return pieces;
}

const frameArb = fc.oneof(
  fc.record({ type: fc.constant("stdout"), id: fc.string(), data: fc.string({ unit: "grapheme" }) }),
  fc.record({
    type: fc.constant("done"),
    id: fc.string(),
    status: fc.constantFrom("ok", "error"),
    executionCount: fc.nat(),
    cancelled: fc.boolean(),
  }),
);

describe("LineReader", () => {
  it("yields the same frames for any chunking of a valid frame stream", () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (frames, cuts) => {
          const stream = Buffer.from(frames.map((f) => `${JSON.stringify(f)}\n`).join(""), "utf8");
          const reader = new LineReader();
          const lines = splitAt(stream, cuts).flatMap((piece) => reader.push(piece));
          expect(lines.map((line) => JSON.parse(line.toString("utf8")))).toEqual(frames);
          expect(reader.bufferedBytes).toBe(0);
        },
      ),
    );
  });

  it("never throws anything but PROTOCOL_ERROR on arbitrary bytes, from the reader or the frame decoder", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 10 }), (chunks) => {
        const reader = new LineReader(256);
        for (const chunk of chunks) {
          try {
            for (const line of reader.push(Buffer.from(chunk))) decodeRunnerFrame(line.toString("utf8"));
          } catch (err) {
            expect(isEvalkitError(err, "PROTOCOL_ERROR")).toBe(true);
          }
        }
      }),
    );
  });

  it("rejects a line longer than its bound with PROTOCOL_ERROR and recovers for the next line", () => {
    const reader = new LineReader(10);
    expect(() => reader.push(Buffer.from("x".repeat(11)))).toThrowError(/longer than 10 bytes/);
    expect(reader.push(Buffer.from("ok\n")).map(String)).toEqual(["ok"]);
  });
});

describe("decodeRunnerFrame", () => {
  it("decodes a done frame and rejects a frame without a type", () => {
    expect(
      decodeRunnerFrame('{"type":"done","id":"a","status":"ok","executionCount":3,"cancelled":false}'),
    ).toEqual({
      type: "done",
      id: "a",
      status: "ok",
      executionCount: 3,
      cancelled: false,
    });
    expect(() => decodeRunnerFrame('{"id":"a"}')).toThrowError(/type/);
    expect(() => decodeRunnerFrame('{"type":"stdout","id":"a","data":5}')).toThrowError(/data/);
  });

  it("passes unknown frame types through for forward compatibility", () => {
    expect(decodeRunnerFrame('{"type":"future","x":1}')).toEqual({
      type: "unknown",
      raw: { type: "future", x: 1 },
    });
  });
});
