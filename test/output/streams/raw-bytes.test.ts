import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeRawBytes,
  encodeRawBytes,
  encodeRawBytesTransient,
} from "../../../src/output/streams/raw-bytes.js";

describe("raw bytes", () => {
  it("turns surrogate-escaped undecodable bytes back into the original bytes", () => {
    expect([...encodeRawBytes("a\udc80\udcffb")]).toEqual([0x61, 0x80, 0xff, 0x62]);
  });

  it("encodes real surrogate pairs as UTF-8 and other lone surrogates as U+FFFD", () => {
    expect(encodeRawBytes("😀").toString("hex")).toBe("f09f9880");
    expect(encodeRawBytes("\ud800x").toString("hex")).toBe("efbfbd78");
  });

  it("round-trips any byte string through the protocol's surrogateescape text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = decodeRawBytes(bytes);
        expect(Buffer.compare(encodeRawBytes(text), Buffer.from(bytes))).toBe(0);
        expect(Buffer.compare(encodeRawBytesTransient(text), Buffer.from(bytes))).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it("encodes ASCII text marked as such to the same bytes, small or past the scratch buffer", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) }),
        (text) => {
          expect(encodeRawBytesTransient(text, true).toString("hex")).toBe(
            Buffer.from(text, "utf8").toString("hex"),
          );
        },
      ),
      { numRuns: 500 },
    );
    const large = "ab\n".repeat(100_000);
    expect(Buffer.compare(encodeRawBytesTransient(large, true), Buffer.from(large, "utf8"))).toBe(0);
  });

  it("decodes valid UTF-8 exactly like TextDecoder", () => {
    const text = "héllo wörld 😀 ✓";
    expect(decodeRawBytes(Buffer.from(text))).toBe(text);
  });
});
