// Shared by the ipykernel comparisons: run cells in a real ipykernel (the reference side) and reduce both sides'
// outputs to the text a notebook reader compares.

import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import { isPagerDisplay } from "./magics-helpers.js";

const DRIVER = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "ipykernel-run-cells.py");

export const IMAGES = ["image/png", "image/jpeg", "image/svg+xml"];

export type Reference = Array<
  | { type: "stream"; name: string; text: string }
  | { type: "result" | "display"; data: Record<string, unknown>; metadata?: Record<string, unknown> }
  | { type: "error"; ename: string; evalue: string }
>;

/** The text a notebook reader compares, with what legitimately differs between two runs taken out. */
export function normalise(text: string, cwd: string): string {
  return (
    text
      .replace(/\x1b\[[0-9;]*[A-Za-z]/g, "")
      // IPython runs `!cmd` on a pty (`\r\n`), evalkit on pipes
      .replace(/\r\n/g, "\n")
      .replaceAll(cwd, "<cwd>")
      .replace(/0x[0-9a-f]+/g, "0x")
      // a warning names the cell's file: ipykernel a hashed temp file, evalkit `<cell N>`
      .replace(/(\/tmp\/ipykernel_\d+\/\d+\.py|<cell \d+>):(\d+):/g, "<cell>:$2:")
      // %timeit's warning about one slow run depends on the machine's mood, on either side
      .replace(/^(\[stdout\] )?The slowest run took .* is being cached\.\n/gm, "$1")
      // timings never repeat
      .replace(/\d+(\.\d+)?(e[+-]\d+)? ?(ns|µs|μs|us|ms|s)\b/g, "<t>")
  );
}

/** One line per output: its kind, which MIME types of `reference` it carries, and its text. */
export function summarise(outputs: Reference, cwd: string, images: readonly string[]): string {
  const lines: string[] = [];
  let stream = "";
  for (const out of outputs) {
    // both kernels may split one stream's text into several messages: adjacent pieces count as one
    if (out.type === "stream" && stream === out.name) lines[lines.length - 1] += out.text;
    else if (out.type === "stream") lines.push(`[${out.name}] ${out.text}`);
    else if (out.type === "error") lines.push(`[error] ${out.ename}: ${out.evalue}`);
    // ipykernel pages `obj?` outside the outputs; evalkit marks that display as pager text
    else if (!(STATUS_MIME in out.data) && !isPagerDisplay(out)) {
      // a PNG by its size too: figures are cropped and sized as the inline backend does it
      const image = images
        .map((m) => (m in out.data ? describeImage(m, out.data[m]) : ""))
        .filter(Boolean)
        .join(",");
      lines.push(`[${out.type}${image ? ` ${image}` : ""}] ${String(out.data["text/plain"] ?? "")}`);
    }
    stream = out.type === "stream" ? out.name : "";
  }
  return normalise(lines.join("\n"), cwd);
}

export function fromEvalkit(outputs: KernelOutput[]): Reference {
  const mapped: Reference = [];
  for (const o of outputs) {
    if (o.type === "stream") mapped.push({ type: "stream", name: o.name, text: o.text });
    else if (o.type === "result" || o.type === "display")
      mapped.push({ type: o.type, data: o.data, metadata: o.metadata });
    else if (o.type === "error") mapped.push({ type: "error", ename: o.ename, evalue: o.evalue });
  }
  return mapped;
}

export function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-differential-")));
  writeFileSync(join(dir, "data.txt"), "one\ntwo\n");
  return dir;
}

function describeImage(mime: string, value: unknown): string {
  if (mime !== "image/png" || typeof value !== "string") return mime;
  const bytes = Buffer.from(value.slice(0, 64), "base64");
  return bytes.length >= 24 ? `${mime} ${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}` : mime;
}

/** Each cell's outputs from a real ipykernel of `python`, run in order in one kernel in `cwd`. */
export function runInIpykernel(python: string, cells: readonly string[], cwd: string): Reference[] {
  const cellsFile = join(realpathSync(mkdtempSync(join(tmpdir(), "evalkit-cells-"))), "cells.json");
  writeFileSync(cellsFile, JSON.stringify(cells));
  return JSON.parse(
    execFileSync(python, [DRIVER, cellsFile, cwd], {
      encoding: "utf8",
      timeout: 200_000,
      env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as Reference[];
}

/** Runs `cells` through `execute` and lists each cell whose text differs from ipykernel's `reference`. */
export async function listDifferences(
  cells: readonly string[],
  reference: Reference[],
  dirs: { jupyter: string; evalkit: string },
  execute: (code: string) => Promise<{ outputs: KernelOutput[] }>,
): Promise<string[]> {
  const differences: string[] = [];
  for (const [index, code] of cells.entries()) {
    const ours = fromEvalkit((await execute(code)).outputs);
    const want = summarise(reference[index] ?? [], dirs.jupyter, IMAGES);
    const got = summarise(ours, dirs.evalkit, IMAGES);
    if (got !== want)
      differences.push(`cell ${index}:\n${code}\n--- ipykernel:\n${want}\n--- evalkit:\n${got}`);
  }
  return differences;
}
