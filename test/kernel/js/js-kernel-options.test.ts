// JsKernel's option check: the fast path for plain options never accepts what the schema turns down.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../../src/errors.js";
import { isPlainlyValid, schemaIssue, validateOptions } from "../../../src/kernel/js/js-kernel-options.js";

const anyValue = fc.oneof(
  fc.constantFrom(undefined, null, false, true, "", "x", 0, -1, 1, 15, 16, 63, 64, 1.5, Number.NaN, Infinity),
  fc.constantFrom(2 ** 53, [], [""], ["a", 1], {}, { network: true, writable: [] }, { cpuSeconds: 0 }),
  fc.integer(),
  fc.string(),
  fc.array(fc.oneof(fc.string(), fc.integer())),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
  fc.record(
    { network: fc.oneof(fc.boolean(), fc.string()), writable: fc.array(fc.oneof(fc.string(), fc.integer())) },
    { requiredKeys: [] },
  ),
  fc.record(
    { cpuSeconds: fc.oneof(fc.integer(), fc.double()), processes: fc.oneof(fc.integer(), fc.string()) },
    { requiredKeys: [] },
  ),
);
const KEYS = [
  "cwd",
  "env",
  "interruptGraceMs",
  "startTimeoutMs",
  "retainStreamBytes",
  "maxHeapMb",
  "memoryMb",
  "node",
  "launcher",
  "sandbox",
  "limits",
  "subreaperPython",
  "other",
  "constructor",
];

describe("JsKernel options", () => {
  it("accepts on the fast path only options the schema accepts", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), anyValue), (options) => {
        if (isPlainlyValid(options)) expect(schemaIssue(options)).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it("takes the usual options on the fast path and still names the field of a bad one", () => {
    const env = { ...process.env } as Record<string, string>;
    expect(isPlainlyValid({ cwd: "/tmp", env, memoryMb: 512, subreaperPython: false })).toBe(true);
    expect(
      isPlainlyValid({ sandbox: { network: false, writable: ["/tmp"] }, limits: { cpuSeconds: 5 } }),
    ).toBe(true);
    const holey = ["nice", "--"];
    holey.length = 3; // a hole: the schema reads it as undefined, not a string
    expect(isPlainlyValid({ launcher: holey })).toBe(false);
    expect(isPlainlyValid({ env: process.env })).toBe(false); // not a plain object: the schema decides
    let failure: unknown;
    try {
      validateOptions({ maxHeapMb: 8 });
    } catch (err) {
      failure = err;
    }
    expect(isEvalkitError(failure, "INVALID_INPUT") && failure.details).toEqual({ field: "maxHeapMb" });
  });
});
