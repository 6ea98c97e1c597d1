// Reads one cell at the prompt: `In [n]:` then `...:` lines until the kernel's completeness check says run it.
import type { CellLanguage } from "../../contracts/cell-result.js";
import { createPalette } from "../../render/color.js";
import type { Completeness } from "./completeness.js";
import type { LineInput } from "./line-input.js";

/** A whole cell, a REPL command line, Ctrl-C at the prompt, or the end of input. */
export type CellRead = { kind: "code"; code: string } | { kind: "interrupt" } | { kind: "eof" };

export interface CellPrompts {
  first: string;
  continuation: string;
}

/** `In [3]: ` / `   ...: ` for Python, `js [3]: ` for JS (`r [3]: ` for R); the continuation lines up with the first. */
export function formatPrompts(language: CellLanguage, count: number, color: boolean): CellPrompts {
  const palette = createPalette({ color });
  // Other languages (on a Jupyter server) are named in their prompt: `r [3]: `.
  // Python keeps IPython's `In [n]:` (and its green), the REPL's default language; others say their name.
  const label = language === "py" ? "In" : language;
  const plain = `${label} [${count}]: `;
  const dots = "...: ".padStart(plain.length);
  const paint = language === "py" ? palette.green : palette.yellow;
  return {
    first: `${paint(`${label} [`)}${palette.bold(paint(String(count)))}${paint("]:")} `,
    continuation: `${paint(dots.trimEnd())} `,
  };
}

/**
 * True for lines the REPL handles itself: `:commands`, `%more`, IPython's bare `exit` / `quit`, and `clear` /
 * `%clear` / `%cls`, which IPython's terminal also takes as clearing the screen (not a bare `cls`: a common
 * variable name).
 */
export function isReplCommand(line: string): boolean {
  const text = line.trim();
  return (
    text.startsWith(":") ||
    /^%more\s*$/.test(text) ||
    /^(exit|quit)(\(\))?$/.test(text) ||
    /^(clear|%clear|%cls)$/.test(text)
  );
}

/**
 * Reads lines until the cell is complete. A whitespace-only line inside a block counts as a blank line (it
 * closes the block, as in IPython); an invalid cell is submitted anyway so the kernel reports the error.
 * A cell starting with a `%%` magic ends at the first empty line.
 */
export async function readCell(
  input: Pick<LineInput, "readLine">,
  prompts: CellPrompts,
  checkComplete: (code: string) => Promise<Completeness>,
): Promise<CellRead> {
  const lines: string[] = [];
  let prefill = "";
  for (;;) {
    const read = await input.readLine(lines.length === 0 ? prompts.first : prompts.continuation, { prefill });
    if (read.kind !== "line") return read;
    if (lines.length === 0) {
      if (read.text.trim() === "") continue;
      if (isReplCommand(read.text)) return { kind: "code", code: read.text.trim() };
    }
    lines.push(read.text.trim() === "" ? "" : read.text.replace(/\s+$/, ""));
    const code = lines.join("\n");
    // A `%%cell_magic` line means nothing without its body: read until an empty line, as IPython does.
    if (/^\s*%%/.test(lines[0] ?? "") && lines[lines.length - 1] !== "") {
      prefill = "";
      continue;
    }
    const answer = await checkComplete(code);
    if (answer.status !== "incomplete") return { kind: "code", code: code.replace(/\n+$/, "") };
    prefill = answer.indent;
  }
}
