// Writes the executed copy of a notebook: each run code cell's outputs and execution_count from its CellResult.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { CellResult } from "../contracts/cell-result.js";
import type { CellOutput, MimeBundle } from "../contracts/outputs.js";
import { EvalkitError } from "../errors.js";
import type { Notebook } from "./notebook-cells.js";

/** An nbformat 4 output object (keys in the sorted order Jupyter writes). */
export type NbOutput = Record<string, unknown> & { output_type: string };

/** A notebook cell (by its position in `cells`) and the result of running it. */
export interface ExecutedCell {
  cellIndex: number;
  result: CellResult;
}

/**
 * The notebook document with code cells filled in from `executed`; every other code cell (empty, skipped, not
 * part of the run) gets no outputs and a null execution_count. Nothing else in the document changes.
 */
export function buildExecutedNotebook(notebook: Notebook, executed: readonly ExecutedCell[]): string {
  if (notebook.nbformat !== 4) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `${notebook.file}: --output-notebook needs an nbformat 4 notebook (this one is nbformat ${notebook.nbformat})`,
    );
  }
  const document = structuredClone(notebook.document);
  const cells = document.cells as Record<string, unknown>[];
  const byIndex = new Map(executed.map((cell) => [cell.cellIndex, cell.result]));
  const displays = new Map<string, NbOutput[]>();
  cells.forEach((cell, index) => {
    if (cell.cell_type !== "code") return;
    const result = byIndex.get(index);
    const hasRun = result !== undefined && result.status !== "skipped";
    cell.execution_count = hasRun ? result.executionCount : null;
    cell.outputs = hasRun ? convertCellOutputs(result, displays) : [];
  });
  return `${JSON.stringify(document, null, notebook.indent)}\n`;
}

/** Writes `text` to `file` through a temporary file in the same directory, so readers never see half a file. */
export function writeFileAtomically(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    const reason = err instanceof Error ? err.message : String(err);
    throw new EvalkitError("INTERNAL", `cannot write ${file} (${reason})`, { file }, err);
  }
}

/**
 * One cell's outputs in nbformat 4 as Jupyter would have saved them: adjacent streams merged, clear_output
 * applied, display updates written into the display they update (`displays` spans the notebook, as in Jupyter),
 * evalkit status events and pager text (`obj?`) dropped. A cell that did not end ok and left no error output gets its notices on stderr,
 * so the saved notebook says why it stopped.
 */
export function convertCellOutputs(result: CellResult, displays = new Map<string, NbOutput[]>()): NbOutput[] {
  let outputs: NbOutput[] = [];
  let isClearPending = false;
  const append = (output: NbOutput) => {
    if (isClearPending) {
      outputs = [];
      isClearPending = false;
    }
    const last = outputs.at(-1);
    if (output.output_type === "stream" && last?.output_type === "stream" && last.name === output.name) {
      last.text = splitLines(joinText(last.text) + joinText(output.text));
      return;
    }
    outputs.push(output);
  };
  for (const output of result.outputs) {
    if (isPagerText(output)) continue;
    const converted = convertOutput(output, result.executionCount);
    if (output.type === "clear_output") {
      if (output.wait) isClearPending = true;
      else outputs = [];
    } else if ((output.type === "display" || output.type === "result") && output.displayId !== undefined) {
      const shown = displays.get(output.displayId) ?? [];
      if (output.update) {
        for (const target of shown) Object.assign(target, pickDisplayFields(converted));
        continue;
      }
      if (converted) displays.set(output.displayId, [...shown, converted]);
    }
    if (converted) append(converted);
  }
  const hasError = outputs.some((output) => output.output_type === "error");
  if (result.status !== "ok" && !hasError && result.notices && result.notices.length > 0) {
    append({ name: "stderr", output_type: "stream", text: splitLines(`${result.notices.join("\n")}\n`) });
  }
  return outputs;
}

function convertOutput(output: CellOutput, executionCount: number | null): NbOutput | undefined {
  switch (output.type) {
    case "stream":
      return { name: output.name, output_type: "stream", text: splitLines(output.text) };
    case "display":
      return {
        data: convertBundle(output.data, output.metadata),
        metadata: jupyterMetadata(output.metadata),
        output_type: "display_data",
      };
    case "result":
      return {
        data: convertBundle(output.data, output.metadata),
        execution_count: executionCount,
        metadata: jupyterMetadata(output.metadata),
        output_type: "execute_result",
      };
    case "error":
      return {
        ename: output.ename,
        evalue: output.evalue,
        output_type: "error",
        traceback: output.traceback,
      };
    default:
      return undefined;
  }
}

/** `obj?`, %pinfo, %psearch: IPython pages this text outside the cell's outputs, so Jupyter never stores it. */
function isPagerText(output: CellOutput): boolean {
  if (output.type !== "display") return false;
  const mark = output.metadata?.evalkit;
  return typeof mark === "object" && mark !== null && (mark as { pager?: unknown }).pager === true;
}

function pickDisplayFields(output: NbOutput | undefined): Partial<NbOutput> {
  return output === undefined ? {} : { data: output.data, metadata: output.metadata };
}

/**
 * The MIME types the kernel added for the model's view only (`metadata.evalkit.modelOnly`: the markdown table of
 * a DataFrame, a Series' HTML table), which IPython does not show and a saved notebook therefore leaves out.
 */
function readModelOnly(metadata: Record<string, unknown> | undefined): ReadonlySet<string> {
  const mark = metadata?.evalkit;
  const list =
    typeof mark === "object" && mark !== null ? (mark as { modelOnly?: unknown }).modelOnly : undefined;
  return new Set(Array.isArray(list) ? list.filter((mime): mime is string => typeof mime === "string") : []);
}

/** The output's metadata as Jupyter stores it: evalkit's own key (pager text, model-only types) left out. */
function jupyterMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (metadata === undefined) return {};
  if (!("evalkit" in metadata)) return metadata;
  const { evalkit: _ours, ...rest } = metadata;
  return rest;
}

/** Text MIME types are stored as lists of lines like Jupyter does; JSON and base64 images stay as they are. */
function convertBundle(data: MimeBundle, metadata?: Record<string, unknown>): MimeBundle {
  const modelOnly = readModelOnly(metadata);
  const out: MimeBundle = {};
  for (const [mime, value] of Object.entries(data)) {
    if (modelOnly.has(mime)) continue;
    const isText = mime.startsWith("text/") || mime === "image/svg+xml";
    out[mime] = isText && typeof value === "string" ? splitLines(value) : value;
  }
  return out;
}

/** `"a\nb"` -> `["a\n", "b"]` (Python's `splitlines(True)` on `\n`, the form nbformat writes). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function joinText(text: unknown): string {
  return Array.isArray(text) ? text.join("") : String(text);
}
