// The eval tool's input (DESIGN.md §3.1): one zod schema, its JSON Schema, and validation naming the field.
import * as z from "zod";
import { type CellLanguage, describeLanguage, toLocalLanguage } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import { clampTimeoutSec, DEFAULT_MAX_TIMEOUT_SEC, DEFAULT_TIMEOUT_SEC } from "../session/cell-timing.js";
import { clampLine } from "../text/text-lines.js";
import { firstIssueField, formatZodIssues } from "./format-issues.js";

// cell-timing.ts owns timeouts (defaults and the one clamp); the schema applies the clamp as it parses, which is
// the tool boundary's one resolution of a cell's time (run-call.ts adds the default and the grace).
export { DEFAULT_MAX_TIMEOUT_SEC };
/** Default per-cell timeout in seconds. */
export const DEFAULT_CELL_TIMEOUT_SEC = DEFAULT_TIMEOUT_SEC;

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
  /** Seconds (clamped to 0..maxTimeout): return with a job handle if cells still run then (docs/tool.md, Jobs). */
  yieldAfter?: number;
  /** Take a checkpoint of the session's Python kernel under this name, after the cells (if any) end ok. */
  checkpoint?: string;
  /** Roll the session's Python kernel back to this checkpoint before the cells (if any). */
  restore?: string;
  /** Roll back to the state before the last call that ran cells (automatic checkpoints), before the cells. */
  undo?: boolean;
}

/** Longest checkpoint name. */
export const MAX_CHECKPOINT_NAME_CHARS = 200;

/** A call on a running job: collect its new output (waiting up to `wait` s), or cancel it. */
export interface EvalJobInput {
  job: string;
  /** Seconds (clamped to 0..maxTimeout) to wait for the job's end; default 0. */
  wait?: number;
  /** Interrupt the job's cells (the usual interrupt, then kill ladder) and return its final result. */
  cancel?: boolean;
}

/** Either kind of eval call. */
export type EvalRequest = EvalInput | EvalJobInput;

/** True when the call takes, restores or undoes a checkpoint. */
export function hasTimeTravel(input: EvalInput): boolean {
  return input.checkpoint !== undefined || input.restore !== undefined || input.undo === true;
}

/** True for `{ job, wait?, cancel? }`. */
export function isJobInput(request: EvalRequest): request is EvalJobInput {
  return (request as Partial<EvalJobInput>).job !== undefined;
}

/** What shapes the schema: the enabled languages and the timeout bounds. */
export interface EvalInputSchemaOptions {
  /** Languages a cell may name (default both). */
  languages?: readonly CellLanguage[];
  /** Ceiling in seconds (default 3600). */
  maxTimeout?: number;
  /** Default in seconds, for the description (default 30). */
  defaultTimeout?: number;
  /**
   * A Jupyter server is configured: any language name is accepted (the server's catalog decides, and an unknown
   * one fails its cell naming what the server offers); `languages` are the ones advertised.
   */
  isOpenLanguage?: boolean;
  /** More names for languages, alias → language (a protocol runtime's `aliases`, docs/runtimes.md). */
  aliases?: Readonly<Record<string, string>>;
}

function describeLanguages(languages: readonly CellLanguage[]): string {
  return languages.map((l) => JSON.stringify(l)).join(" or ");
}

/** The zod schema of the tool input; parsing maps aliases to `py`/`js` and clamps timeouts. */
export function createEvalInputSchema(options: EvalInputSchemaOptions = {}) {
  const languages =
    options.languages && options.languages.length > 0 ? options.languages : (["py", "js"] as const);
  const maxTimeout = options.maxTimeout ?? DEFAULT_MAX_TIMEOUT_SEC;
  const defaultTimeout = clampTimeoutSec(options.defaultTimeout, maxTimeout, DEFAULT_CELL_TIMEOUT_SEC);
  const extra = Object.entries(options.aliases ?? {}).filter(([, target]) => languages.includes(target));
  const accepted = [
    ...languages.flatMap((l) => (toLocalLanguage(l) === l ? [l, describeLanguage(l)] : [l])),
    ...extra.map(([alias]) => alias),
  ] as [string, ...string[]];
  const expected = `expected ${describeLanguages(languages)}`;
  const extraKeys = new Map(extra);
  const toKey = (value: string): CellLanguage =>
    toLocalLanguage(value) ??
    (extraKeys.size > 0 ? extraKeys.get(value) : undefined) ??
    (value as CellLanguage);
  const isBuiltIn = languages.every((l) => toLocalLanguage(l) === l);

  const language = options.isOpenLanguage
    ? z
        .string()
        .trim()
        .min(1, { error: () => `expected a language name such as ${describeLanguages(languages)}` })
        .transform((value) => toKey(value.toLowerCase()))
        .describe(
          `Language of the cell, run on the Jupyter server's kernels: ${describeLanguages(languages)}` +
            ' (default "py"); a kernelspec name also works.',
        )
    : z
        .enum(accepted, { error: () => expected })
        .transform(toKey)
        .describe(
          languages.length === 1
            ? `Language of the cell: ${describeLanguages(languages)} (the only one available; "${describeLanguage(languages[0]!)}" also accepted).`
            : isBuiltIn
              ? `Language of the cell: "py" (default) or "js"; "python" and "javascript" are accepted too.`
              : `Language of the cell: ${describeLanguages(languages)} (default "${languages[0]}").`,
        );
  const timeout = z
    .number()
    .transform((value) => clampTimeoutSec(value, maxTimeout))
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

  const checkpointName = z
    .string()
    .min(1)
    .max(MAX_CHECKPOINT_NAME_CHARS)
    .regex(/^[^\x00-\x1f\x7f]+$/, "expected a name without control characters");

  const seconds = (what: string) =>
    z
      .number()
      .transform((value) => Math.min(maxTimeout, Math.max(0, value)))
      .optional()
      .describe(`${what} (clamped to 0..${maxTimeout}).`);

  return z
    .strictObject({
      cells: z
        .array(cell)
        .min(1)
        .optional()
        .describe(
          "Cells to run in order; the first cell that fails stops the call and later cells are skipped.",
        ),
      timeout: z
        .number()
        .transform((value) => clampTimeoutSec(value, maxTimeout))
        .optional()
        .describe(`Default timeout in seconds for cells that set none (clamped to 1..${maxTimeout}).`),
      reset: z.boolean().optional().describe("Restart each interpreter before its first cell in this call."),
      yieldAfter: seconds(
        "Seconds after which the call returns with a job handle (details.job) if cells still run; " +
          "they keep running under their timeout. 0 returns after the first output",
      ),
      job: z
        .string()
        .min(1)
        .optional()
        .describe("A job id from details.job: collect the output the job produced since the last return."),
      wait: seconds("With job: seconds to wait for the job to end before returning (default 0)"),
      cancel: z.boolean().optional().describe("With job: interrupt the job's cells and return its result."),
      checkpoint: checkpointName
        .optional()
        .describe(
          "Take a checkpoint of the Python state under this name (after the call's cells, if they all end ok).",
        ),
      restore: checkpointName
        .optional()
        .describe("Roll the Python state back to this checkpoint (before the call's cells, if any)."),
      undo: z
        .literal(true)
        .optional()
        .describe(
          "Roll the Python state back to before the last call that ran cells (before this call's cells).",
        ),
    })
    .superRefine((data, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: "custom", path: [path], message });
      if (data.job === undefined) {
        const isTimeTravel =
          data.checkpoint !== undefined || data.restore !== undefined || data.undo !== undefined;
        if (data.cells === undefined && !isTimeTravel) issue("cells", "expected an array, got nothing");
        if (data.restore !== undefined && data.undo !== undefined)
          issue("undo", "not allowed with restore (both roll the state back; pick one)");
        if (data.cells === undefined && data.yieldAfter !== undefined)
          issue("yieldAfter", "only allowed with cells");
        if (data.wait !== undefined) issue("wait", "only allowed with job (a job handle from details.job)");
        if (data.cancel !== undefined)
          issue("cancel", "only allowed with job (a job handle from details.job)");
        return;
      }
      for (const key of [
        "cells",
        "timeout",
        "reset",
        "yieldAfter",
        "checkpoint",
        "restore",
        "undo",
      ] as const) {
        if (data[key] !== undefined) issue(key, "not allowed with job (a job call only collects or cancels)");
      }
      if (data.cancel === true && data.wait !== undefined)
        issue("wait", "not allowed with cancel (a cancel returns once the job has ended)");
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

/** Parses either kind of call (cells, or a job handle) or describes what is wrong, field by field. */
export function safeParseEvalRequest(
  schema: EvalInputSchema | (() => EvalInputSchema),
  input: unknown,
): { ok: true; value: EvalRequest } | { ok: false; error: EvalInputProblem } {
  const quick = parseCodeOnlyInput(input);
  if (quick !== undefined) return { ok: true, value: quick };
  const result = (typeof schema === "function" ? schema() : schema).safeParse(input);
  if (result.success) return { ok: true, value: stripUndefined(result.data) };
  const problems = formatZodIssues(result.error.issues, input);
  return {
    ok: false,
    error: { message: problems.join("; "), field: firstIssueField(result.error.issues), problems },
  };
}

/** Parses a cells call (a job handle is refused: this entry point runs cells) or describes what is wrong. */
export function safeParseEvalInput(
  schema: EvalInputSchema,
  input: unknown,
): { ok: true; value: EvalInput } | { ok: false; error: EvalInputProblem } {
  const parsed = safeParseEvalRequest(schema, input);
  if (!parsed.ok || !isJobInput(parsed.value)) return parsed as { ok: true; value: EvalInput };
  const problem =
    "job: a job handle is not accepted here; only the eval tool's execute (and MCP) continue jobs";
  return { ok: false, error: { message: problem, field: "job", problems: [problem] } };
}

/** Parses either kind of call or throws EvalkitError INVALID_INPUT whose message names each offending field. */
export function parseEvalRequest(
  schema: EvalInputSchema | (() => EvalInputSchema),
  input: unknown,
): EvalRequest {
  return orThrow(safeParseEvalRequest(schema, input));
}

/** Parses a cells call or throws EvalkitError INVALID_INPUT whose message names each offending field. */
export function parseEvalInput(schema: EvalInputSchema, input: unknown): EvalInput {
  return orThrow(safeParseEvalInput(schema, input));
}

function orThrow<T>(parsed: { ok: true; value: T } | { ok: false; error: EvalInputProblem }): T {
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

// Bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069): a U+202E in a title would show the
// rest of the header, status included, reversed in a terminal or UI. Lone surrogates cannot be encoded as UTF-8.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A title is shown in headers (`[2/3] title`): line breaks and control characters would fake a header, and a
 * megabyte title would be repeated in every header and progress line. Lone surrogates become U+FFFD and bidi
 * controls go, as in the rest of the text a model reads.
 */
function toOneLine(title: string): string {
  const clean = title
    .replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, " ")
    .replace(BIDI_CONTROLS, "")
    .replace(LONE_SURROGATE, "\ufffd")
    .trim();
  return clampLine(clean, MAX_TITLE_CHARS);
}

function stripUndefined(data: z.output<EvalInputSchema>): EvalRequest {
  if (data.job !== undefined) {
    const request: EvalJobInput = { job: data.job };
    if (data.wait !== undefined) request.wait = data.wait;
    if (data.cancel === true) request.cancel = true;
    return request;
  }
  // superRefine guarantees cells when there is no job.
  const cells = (data.cells ?? []).map((c) => {
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
  if (data.yieldAfter !== undefined) input.yieldAfter = data.yieldAfter;
  if (data.checkpoint !== undefined) input.checkpoint = data.checkpoint;
  if (data.restore !== undefined) input.restore = data.restore;
  if (data.undo === true) input.undo = true;
  return input;
}
