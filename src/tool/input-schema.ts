// The eval tool's input (DESIGN.md §3.1): one zod schema, its JSON Schema, and validation naming the field.
import { z } from "zod";
import type { CellLanguage } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import { clampLine } from "../render/text-lines.js";
import { firstIssueField, formatZodIssues } from "./format-issues.js";

/** Default per-cell timeout in seconds. */
export const DEFAULT_CELL_TIMEOUT_SEC = 30;
/** Default ceiling for timeouts in seconds. */
export const DEFAULT_MAX_TIMEOUT_SEC = 3600;

/** One cell after validation: aliases mapped, timeout clamped. */
export interface EvalCellInput {
  /** Absent when the caller did not say (the tool then picks Python, or JS when Python is unavailable). */
  language?: CellLanguage;
  code: string;
  title?: string;
  /** Seconds, already clamped to 1..maxTimeout. */
  timeout?: number;
  reset?: boolean;
}

/** The tool's input after validation. */
export interface EvalInput {
  cells: EvalCellInput[];
  /** Call-level default timeout (seconds, clamped) for cells that set none. */
  timeout?: number;
  /** Reset each language's kernel before its first cell in this call. */
  reset?: boolean;
}

/** What shapes the schema: the enabled languages and the timeout bounds. */
export interface EvalInputSchemaOptions {
  /** Languages a cell may name (default both). */
  languages?: readonly CellLanguage[];
  /** Ceiling in seconds (default 3600). */
  maxTimeout?: number;
  /** Default in seconds, for the description (default 30). */
  defaultTimeout?: number;
}

const ALIASES: Record<CellLanguage, string> = { py: "python", js: "javascript" };

function describeLanguages(languages: readonly CellLanguage[]): string {
  return languages.map((l) => JSON.stringify(l)).join(" or ");
}

/** The zod schema of the tool input; parsing maps aliases to `py`/`js` and clamps timeouts. */
export function createEvalInputSchema(options: EvalInputSchemaOptions = {}) {
  const languages =
    options.languages && options.languages.length > 0 ? options.languages : (["py", "js"] as const);
  const maxTimeout = options.maxTimeout ?? DEFAULT_MAX_TIMEOUT_SEC;
  const defaultTimeout = Math.min(options.defaultTimeout ?? DEFAULT_CELL_TIMEOUT_SEC, maxTimeout);
  const accepted = languages.flatMap((l) => [l, ALIASES[l]]) as [string, ...string[]];
  const expected = `expected ${describeLanguages(languages)}`;

  const language = z
    .enum(accepted, { error: () => expected })
    .transform(
      (value): CellLanguage =>
        value === "python" ? "py" : value === "javascript" ? "js" : (value as CellLanguage),
    )
    .describe(
      languages.length === 1
        ? `Language of the cell: ${describeLanguages(languages)} (the only one available; "${ALIASES[languages[0]!]}" also accepted).`
        : `Language of the cell: "py" (default) or "js"; "python" and "javascript" are accepted too.`,
    );
  const timeout = z
    .number()
    .transform((value) => Math.min(maxTimeout, Math.max(1, value)))
    .describe(
      `Seconds this cell may run (default ${defaultTimeout}); values are clamped to 1..${maxTimeout}.`,
    );

  const cell = z.strictObject({
    language: language.optional(),
    code: z.string().describe("Source code of the cell."),
    title: z.string().optional().describe("Short label shown in the cell's header."),
    timeout: timeout.optional(),
    reset: z
      .boolean()
      .optional()
      .describe("Restart this cell's interpreter (fresh state) before the cell runs."),
  });

  return z.strictObject({
    cells: z
      .array(cell)
      .min(1)
      .describe(
        "Cells to run in order; the first cell that fails stops the call and later cells are skipped.",
      ),
    timeout: z
      .number()
      .transform((value) => Math.min(maxTimeout, Math.max(1, value)))
      .optional()
      .describe(`Default timeout in seconds for cells that set none (clamped to 1..${maxTimeout}).`),
    reset: z.boolean().optional().describe("Restart each interpreter before its first cell in this call."),
  });
}

/** The zod schema type produced by {@link createEvalInputSchema}. */
export type EvalInputSchema = ReturnType<typeof createEvalInputSchema>;

/** A JSON Schema object as agent frameworks mount it. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/**
 * The JSON Schema of the input (what callers send, so aliases and unclamped numbers are allowed), without the
 * `$schema` key some clients reject.
 */
export function toInputJsonSchema(schema: EvalInputSchema): JsonSchemaObject {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const { $schema: _ignored, ...rest } = json;
  return { ...rest, type: "object" };
}

/** Validation that failed: one message per problem. */
export interface EvalInputProblem {
  message: string;
  field: string;
  problems: string[];
}

/** Parses `input` or describes what is wrong, field by field. */
export function safeParseEvalInput(
  schema: EvalInputSchema,
  input: unknown,
): { ok: true; value: EvalInput } | { ok: false; error: EvalInputProblem } {
  const quick = parseCodeOnlyInput(input);
  if (quick !== undefined) return { ok: true, value: quick };
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: stripUndefined(result.data) };
  const problems = formatZodIssues(result.error.issues, input);
  return {
    ok: false,
    error: { message: problems.join("; "), field: firstIssueField(result.error.issues), problems },
  };
}

/** Parses `input` or throws EvalkitError INVALID_INPUT whose message names each offending field. */
export function parseEvalInput(schema: EvalInputSchema, input: unknown): EvalInput {
  const parsed = safeParseEvalInput(schema, input);
  if (parsed.ok) return parsed.value;
  throw new EvalkitError("INVALID_INPUT", `invalid eval input: ${parsed.error.message}`, {
    field: parsed.error.field,
    problems: parsed.error.problems,
  });
}

/**
 * The shape agents send most, `{ cells: [{ code }] }`, validated by hand: zod costs ~45 µs a call, a third of
 * a warm `1+1`. Anything else (or anything odd) goes through the schema, so errors read the same.
 */
function parseCodeOnlyInput(input: unknown): EvalInput | undefined {
  if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype)
    return;
  const keys = Object.keys(input);
  if (keys.length !== 1 || keys[0] !== "cells") return;
  const cells = (input as { cells: unknown }).cells;
  if (!Array.isArray(cells) || cells.length === 0) return;
  const out: EvalCellInput[] = [];
  for (const cell of cells) {
    if (typeof cell !== "object" || cell === null || Object.getPrototypeOf(cell) !== Object.prototype) return;
    const cellKeys = Object.keys(cell);
    const code = (cell as { code?: unknown }).code;
    if (cellKeys.length !== 1 || typeof code !== "string") return;
    out.push({ code });
  }
  return { cells: out };
}

/** Longest cell title kept; a longer one ends with `…[+N chars]` like any clamped line. */
export const MAX_TITLE_CHARS = 200;

/**
 * A title is shown in headers (`[2/3] title`): line breaks and control characters would fake a header, and a
 * megabyte title would be repeated in every header and progress line.
 */
function toOneLine(title: string): string {
  return clampLine(title.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, " ").trim(), MAX_TITLE_CHARS);
}

function stripUndefined(data: z.output<EvalInputSchema>): EvalInput {
  const cells = data.cells.map((c) => {
    const cell: EvalCellInput = { code: c.code };
    if (c.language !== undefined) cell.language = c.language;
    if (c.title !== undefined) cell.title = toOneLine(c.title);
    if (c.timeout !== undefined) cell.timeout = c.timeout;
    if (c.reset !== undefined) cell.reset = c.reset;
    return cell;
  });
  const input: EvalInput = { cells };
  if (data.timeout !== undefined) input.timeout = data.timeout;
  if (data.reset !== undefined) input.reset = data.reset;
  return input;
}
