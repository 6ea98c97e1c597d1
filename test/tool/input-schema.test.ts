// The eval tool's input schema: both seed forms, aliases, clamping, field-naming errors, clean JSON Schema.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import {
  createEvalInputSchema,
  parseEvalInput,
  safeParseEvalInput,
  toInputJsonSchema,
} from "../../src/tool/input-schema.js";

const schema = createEvalInputSchema();

function problemsOf(input: unknown): string[] {
  const parsed = safeParseEvalInput(schema, input);
  if (parsed.ok) throw new Error(`expected a validation error for ${JSON.stringify(input)}`);
  return parsed.error.problems;
}

describe("eval input schema", () => {
  it("accepts the per-cell form with language, title, timeout and reset", () => {
    const input = parseEvalInput(schema, {
      cells: [
        { language: "py", code: "x = 1", title: "setup", timeout: 5, reset: true },
        { language: "js", code: "1 + 1" },
      ],
    });
    expect(input).toEqual({
      cells: [
        { language: "py", code: "x = 1", title: "setup", timeout: 5, reset: true },
        { language: "js", code: "1 + 1" },
      ],
    });
  });

  it("turns a title into one line, so it cannot fake a cell header", () => {
    const input = parseEvalInput(schema, {
      cells: [{ code: "1", title: "load\n[2/2] python\r\u2028done\t" }],
    });
    expect(input.cells[0]?.title).toBe("load [2/2] python done");
  });

  it("drops bidi overrides and replaces lone surrogates in a title, so the header reads as it is", () => {
    const input = parseEvalInput(schema, {
      cells: [{ code: "1", title: "load \u202edata\u202c \u2066x\u2069 \ud800end \udc00 \ud83d\ude00" }],
    });
    expect(input.cells[0]?.title).toBe("load data x \ufffdend \ufffd \ud83d\ude00");
  });

  it("clamps a long title like any long line, so headers stay short", () => {
    const input = parseEvalInput(schema, { cells: [{ code: "1", title: "t".repeat(1_000_000) }] });
    expect(input.cells[0]?.title).toBe(`${"t".repeat(200)}…[+999800 chars]`);
  });

  it("accepts the older form with call-level timeout and reset and cells without a language", () => {
    const input = parseEvalInput(schema, { cells: [{ code: "print(1)" }], timeout: 12, reset: true });
    expect(input).toEqual({ cells: [{ code: "print(1)" }], timeout: 12, reset: true });
  });

  it("maps the python and javascript aliases to py and js", () => {
    const input = parseEvalInput(schema, {
      cells: [
        { language: "python", code: "1" },
        { language: "javascript", code: "2" },
      ],
    });
    expect(input.cells.map((c) => c.language)).toEqual(["py", "js"]);
  });

  it("clamps negative, zero and huge timeouts instead of rejecting them", () => {
    const input = parseEvalInput(schema, {
      cells: [
        { code: "1", timeout: -5 },
        { code: "2", timeout: 0 },
        { code: "3", timeout: 1e9 },
        { code: "4", timeout: 2.5 },
      ],
      timeout: 99999,
    });
    expect(input.cells.map((c) => c.timeout)).toEqual([1, 1, 3600, 2.5]);
    expect(input.timeout).toBe(3600);
  });

  it("clamps to a custom maximum", () => {
    const small = createEvalInputSchema({ maxTimeout: 60 });
    expect(parseEvalInput(small, { cells: [{ code: "1", timeout: 600 }] }).cells[0]?.timeout).toBe(60);
  });

  it("names the field when cells is missing, not an array or empty", () => {
    expect(problemsOf({})).toEqual(["cells: expected an array, got nothing"]);
    expect(problemsOf({ cells: "print(1)" })).toEqual(['cells: expected an array, got "print(1)"']);
    expect(problemsOf({ cells: [] })).toEqual(["cells: expected at least 1 item, got an empty array"]);
    expect(problemsOf(null)).toEqual(["input: expected an object, got null"]);
  });

  it("names the cell and field for an unknown language", () => {
    expect(problemsOf({ cells: [{ code: "1" }, { language: "rb", code: "puts 1" }] })).toEqual([
      'cells[1].language: expected "py" or "js", got "rb"',
    ]);
  });

  it("rejects a timeout that is not a number, naming it", () => {
    expect(problemsOf({ cells: [{ code: "1", timeout: "x" }] })).toEqual([
      'cells[0].timeout: expected a number, got "x"',
    ]);
    expect(problemsOf({ cells: [{ code: "1" }], timeout: "10" })).toEqual([
      'timeout: expected a number, got "10"',
    ]);
  });

  it("rejects a missing code and unknown keys, naming each", () => {
    expect(problemsOf({ cells: [{ language: "py" }] })).toEqual([
      "cells[0].code: expected a string, got nothing",
    ]);
    expect(problemsOf({ cells: [{ code: "1", lang: "py" }] })).toEqual([
      "cells[0].lang: unknown key (misspelt or not supported)",
    ]);
  });

  it("throws INVALID_INPUT whose message and details name the field", () => {
    try {
      parseEvalInput(schema, { cells: [{ code: 1 }] });
      expect.unreachable();
    } catch (err) {
      expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
      expect((err as Error).message).toContain("cells[0].code: expected a string, got 1");
      expect((err as { details: { field: string } }).details.field).toBe("cells[0].code");
    }
  });

  it("with only JS enabled, rejects py cells, says js is expected and that Python is turned off", () => {
    const jsOnly = createEvalInputSchema({ languages: ["js"] });
    const parsed = safeParseEvalInput(jsOnly, { cells: [{ language: "py", code: "1" }] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.problems).toEqual([
        'cells[0].language: expected "js", got "py": Python cells are turned off here (EVALKIT_PY=0 or the tool\'s py option)',
      ]);
    }
  });
});

describe("eval input JSON Schema", () => {
  it("is one flat object schema without $schema, where cells or job is given (a job call has no cells)", () => {
    const json = toInputJsonSchema(schema);
    expect(json.type).toBe("object");
    expect(json).not.toHaveProperty("$schema");
    // No top-level anyOf: several clients refuse it; the refinement names the missing field instead.
    expect(json).not.toHaveProperty("anyOf");
    expect(json.required ?? []).toEqual([]);
    expect(Object.keys(json.properties as object)).toEqual(
      expect.arrayContaining(["cells", "yieldAfter", "job", "wait", "cancel"]),
    );
    const cells = (json.properties as Record<string, { type: string; minItems: number; items: unknown }>)
      .cells;
    expect(cells?.type).toBe("array");
    expect(cells?.minItems).toBe(1);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("advertises both languages with aliases, and only js when narrowed", () => {
    const languageEnum = (s: ReturnType<typeof toInputJsonSchema>) =>
      // biome-ignore lint/suspicious/noExplicitAny: walking a JSON Schema document
      (s as any).properties.cells.items.properties.language.enum as string[];
    expect(languageEnum(toInputJsonSchema(schema)).sort()).toEqual(["javascript", "js", "py", "python"]);
    expect(languageEnum(toInputJsonSchema(createEvalInputSchema({ languages: ["js"] })))).toEqual([
      "js",
      "javascript",
    ]);
  });

  it("describes timeout bounds and types it as a number", () => {
    // biome-ignore lint/suspicious/noExplicitAny: walking a JSON Schema document
    const timeout = (toInputJsonSchema(schema) as any).properties.cells.items.properties.timeout;
    expect(timeout.type).toBe("number");
    expect(timeout.description).toContain("1..3600");
  });
});

describe("the code-only fast path", () => {
  it("gives exactly what the schema gives for any code-only input, and defers odd shapes to the schema", () => {
    const schema = createEvalInputSchema({});
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (codes) => {
        const input = { cells: codes.map((code) => ({ code })) };
        const viaSchema = schema.parse(input);
        expect(parseEvalInput(schema, input)).toEqual({
          cells: (viaSchema.cells ?? []).map((c) => ({ code: c.code })),
        });
      }),
    );
    expect(() => parseEvalInput(schema, { cells: [{ code: 1 }] })).toThrowError(/cells\[0\]\.code/);
    expect(() => parseEvalInput(schema, { cells: [] })).toThrowError(/cells/);
    expect(() => parseEvalInput(schema, { cells: [{ code: "1", extra: true }] })).toThrowError(/extra/);
  });
});
