// Reads a Jupyter notebook (.ipynb, nbformat 4, or 3 with worksheets) into the eval cells its code cells become.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import * as z from "zod";
import type { CellLanguage } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";

/** One non-empty code cell of a notebook, ready to run. */
export interface NotebookCodeCell {
  /** Position in the notebook's cell list (markdown and raw cells included). */
  cellIndex: number;
  code: string;
  /** `<file name> [<n>]`, n the 1-based position among all code cells (empty ones counted). */
  title: string;
}

/** A parsed notebook: the cells to run plus the document itself, kept for writing the executed copy. */
export interface Notebook {
  /** The path as the user gave it (used in messages). */
  file: string;
  nbformat: number;
  language: CellLanguage;
  cells: NotebookCodeCell[];
  /** The whole JSON document as read; nothing in it is normalised. */
  document: Record<string, unknown>;
  /** The indentation the file uses (Jupyter writes 1 space), so a rewritten copy diffs cleanly. */
  indent: string;
}

const SOURCE_ERROR = "must be a string or an array of strings";
const source = z.union([z.string(), z.array(z.string())], { error: SOURCE_ERROR });
const optionalName = z.string({ error: "must be a string" }).optional();

const cellV4 = z.looseObject({
  cell_type: z.string({ error: "must be a string" }),
  source,
});

const languageMetadata = z
  .looseObject(
    {
      kernelspec: z.looseObject({ language: optionalName }, { error: "must be an object" }).optional(),
      language_info: z.looseObject({ name: optionalName }, { error: "must be an object" }).optional(),
      language: optionalName,
    },
    { error: "must be an object" },
  )
  .optional();

const notebookV4 = z.looseObject({
  metadata: languageMetadata,
  cells: z.array(cellV4, { error: "must be an array of cells" }),
});

// nbformat 3 keeps cells in worksheets; code cells carry `input` (and their own `language`).
const cellV3 = z.looseObject({
  cell_type: z.string({ error: "must be a string" }),
  input: source.optional(),
  source: source.optional(),
  language: optionalName,
});

const notebookV3 = z.looseObject({
  metadata: languageMetadata,
  worksheets: z.array(z.looseObject({ cells: z.array(cellV3, { error: "must be an array of cells" }) }), {
    error: "must be an array of worksheets",
  }),
});

/** Reads and parses `file`; every problem is an INVALID_INPUT EvalkitError with a one-line message. */
export function readNotebook(
  file: string,
  defaultLanguage: CellLanguage = "py",
  isOpenLanguage = false,
): Notebook {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(err);
    throw invalid(file, `cannot read (${reason})`);
  }
  return parseNotebook(text, file, defaultLanguage, isOpenLanguage);
}

/**
 * Parses notebook JSON `text`; `file` names it in messages and titles. `isOpenLanguage` (a Jupyter server is
 * configured): a notebook in any language is accepted, its cells run in that language on the server.
 */
export function parseNotebook(
  text: string,
  file: string,
  defaultLanguage: CellLanguage = "py",
  isOpenLanguage = false,
): Notebook {
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    // Node quotes the start of the text in the message; keep it on one line.
    const reason = (err instanceof Error ? err.message : String(err)).replace(/\r?\n/g, "\\n");
    throw invalid(file, `not a Jupyter notebook: not valid JSON (${reason})`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw invalid(file, "not a Jupyter notebook: expected a JSON object");
  }
  const document = json as Record<string, unknown>;
  const nbformat = document.nbformat;
  if (nbformat === undefined) throw invalid(file, "not a Jupyter notebook: nbformat is missing");
  if (nbformat !== 3 && nbformat !== 4) {
    throw invalid(file, `nbformat ${JSON.stringify(nbformat)} is not supported (expected 4, or 3)`);
  }
  const indent = /^\{\r?\n([ \t]+)"/.exec(text.replace(/^\uFEFF/, ""))?.[1] ?? " ";
  const name = basename(file);

  if (nbformat === 4) {
    const parsed = check(notebookV4, document, file);
    const language = pickLanguage(parsed.metadata, undefined, file, isOpenLanguage) ?? defaultLanguage;
    const sources = parsed.cells.map((cell) => (cell.cell_type === "code" ? cell.source : undefined));
    return { file, nbformat, language, cells: toCodeCells(sources, name), document, indent };
  }
  const parsed = check(notebookV3, document, file);
  const cells = parsed.worksheets.flatMap((sheet) => sheet.cells);
  const firstCode = cells.find((cell) => cell.cell_type === "code");
  const language =
    pickLanguage(parsed.metadata, firstCode?.language, file, isOpenLanguage) ?? defaultLanguage;
  const sources = cells.map((cell) => (cell.cell_type === "code" ? (cell.input ?? "") : undefined));
  return { file, nbformat, language, cells: toCodeCells(sources, name), document, indent };
}

/** `undefined` entries are non-code cells; empty code cells count for numbering but are not run. */
function toCodeCells(sources: (string | string[] | undefined)[], name: string): NotebookCodeCell[] {
  const cells: NotebookCodeCell[] = [];
  let codeNumber = 0;
  sources.forEach((cellSource, cellIndex) => {
    if (cellSource === undefined) return;
    codeNumber++;
    const code = typeof cellSource === "string" ? cellSource : cellSource.join("");
    if (code.trim() === "") return;
    cells.push({ cellIndex, code, title: `${name} [${codeNumber}]` });
  });
  return cells;
}

type LanguageMetadata = z.infer<typeof languageMetadata>;

/** The kernel's language from the metadata; undefined when the notebook does not say. */
function pickLanguage(
  metadata: LanguageMetadata,
  cellLanguage: string | undefined,
  file: string,
  isOpenLanguage: boolean,
): CellLanguage | undefined {
  const named =
    metadata?.kernelspec?.language ?? metadata?.language_info?.name ?? metadata?.language ?? cellLanguage;
  if (named === undefined || named.trim() === "") return undefined;
  const normalised = named.trim().toLowerCase();
  if (/^(i?python[23]?)$/.test(normalised)) return "py";
  if (normalised === "javascript") return "js";
  if (isOpenLanguage) return normalised;
  throw invalid(
    file,
    `the notebook's language is ${JSON.stringify(named)}; evalkit runs Python and JavaScript notebooks ` +
      "(and, with --jupyter URL, any language the Jupyter server has a kernel for)",
  );
}

function check<T extends z.ZodType>(schema: T, value: unknown, file: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw invalid(file, `${formatPath(issue?.path ?? [])} ${issue?.message ?? "is invalid"}`);
}

/** `cells[3].source` for `["cells", 3, "source"]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "the notebook" : out;
}

function invalid(file: string, message: string): EvalkitError {
  return new EvalkitError("INVALID_INPUT", `${file}: ${message}`, { file });
}
