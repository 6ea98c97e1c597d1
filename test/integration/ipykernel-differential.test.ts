// Differential check on both library legs: common notebook idioms run through evalkit and through a real
// ipykernel on the same interpreter must show the same text (streams, text/plain, errors) and the same images.

import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import { DEBIAN_PYTHON, findCurrentLegPython } from "../helpers/interpreters.js";
import { findMissingModules } from "../helpers/libraries.js";
import { startKernel } from "../helpers/python.js";
import { IDIOM_CELLS } from "./ipykernel-idioms.js";
import { isPagerDisplay } from "./magics-helpers.js";

const DRIVER = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "ipykernel-run-cells.py");
const JUPYTER = ["ipykernel", "jupyter_client", "IPython", "numpy", "pandas", "matplotlib"];
// CI installs both legs with Jupyter (.ci/run) and sets EVALKIT_REQUIRE_PYTHON_LIBS=1: a gap fails there.
const isRequired = process.env.EVALKIT_REQUIRE_PYTHON_LIBS === "1";

interface Leg {
  name: string;
  python: string | undefined;
  skip: string | undefined;
}

function leg(name: string, python: string | undefined, hint: string): Leg {
  if (!python) return { name, python, skip: `no interpreter for this leg (${hint})` };
  const missing = findMissingModules(python, JUPYTER);
  const skip = missing.length > 0 ? `${python} lacks ${missing.join(", ")} (${hint})` : undefined;
  return { name, python, skip: isRequired ? undefined : skip };
}

const LEGS = [
  leg("Debian", DEBIAN_PYTHON, "apt-get install python3-ipykernel python3-jupyter-client python3-pandas"),
  leg("current", findCurrentLegPython(), "run .ci/run: it makes .venv-current with ipykernel"),
];
for (const l of LEGS) {
  if (l.skip) console.warn(`skipping the ipykernel differential check on the ${l.name} leg: ${l.skip}`);
}

type Reference = Array<
  | { type: "stream"; name: string; text: string }
  | { type: "result" | "display"; data: Record<string, unknown>; metadata?: Record<string, unknown> }
  | { type: "error"; ename: string; evalue: string }
>;

/** The text a notebook reader compares, with what legitimately differs between two runs taken out. */
function normalise(text: string, cwd: string): string {
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
function summarise(outputs: Reference, cwd: string, images: readonly string[]): string {
  const lines: string[] = [];
  let stream = "";
  for (const out of outputs) {
    // both kernels may split one stream's text into several messages: adjacent pieces count as one
    if (out.type === "stream" && stream === out.name) lines[lines.length - 1] += out.text;
    else if (out.type === "stream") lines.push(`[${out.name}] ${out.text}`);
    else if (out.type === "error") lines.push(`[error] ${out.ename}: ${out.evalue}`);
    // ipykernel pages `obj?` outside the outputs; evalkit marks that display as pager text
    else if (!(STATUS_MIME in out.data) && !isPagerDisplay(out)) {
      const image = images.filter((m) => m in out.data).join(",");
      lines.push(`[${out.type}${image ? ` ${image}` : ""}] ${String(out.data["text/plain"] ?? "")}`);
    }
    stream = out.type === "stream" ? out.name : "";
  }
  return normalise(lines.join("\n"), cwd);
}

function fromEvalkit(outputs: KernelOutput[]): Reference {
  const mapped: Reference = [];
  for (const o of outputs) {
    if (o.type === "stream") mapped.push({ type: "stream", name: o.name, text: o.text });
    else if (o.type === "result" || o.type === "display")
      mapped.push({ type: o.type, data: o.data, metadata: o.metadata });
    else if (o.type === "error") mapped.push({ type: "error", ename: o.ename, evalue: o.evalue });
  }
  return mapped;
}

function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-differential-")));
  writeFileSync(join(dir, "data.txt"), "one\ntwo\n");
  return dir;
}

const IMAGES = ["image/png", "image/jpeg", "image/svg+xml"];

describe.each(LEGS)("common notebook idioms on the $name leg", (l) => {
  it.skipIf(l.skip !== undefined)(
    `show the same text and images in evalkit as in ipykernel (${IDIOM_CELLS.length} cells)`,
    { timeout: 240_000 },
    async () => {
      const python = l.python as string;
      expect(findMissingModules(python, JUPYTER), `${python} must have ${JUPYTER.join(", ")}`).toEqual([]);
      const jupyterDir = scratch();
      const cellsFile = join(realpathSync(mkdtempSync(join(tmpdir(), "evalkit-cells-"))), "cells.json");
      writeFileSync(cellsFile, JSON.stringify(IDIOM_CELLS));
      const reference = JSON.parse(
        execFileSync(python, [DRIVER, cellsFile, jupyterDir], {
          encoding: "utf8",
          timeout: 200_000,
          env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" },
          stdio: ["ignore", "pipe", "ignore"],
        }),
      ) as Reference[];
      const evalkitDir = scratch();
      const kernel = await startKernel({ python, cwd: evalkitDir });
      const differences: string[] = [];
      for (const [index, code] of IDIOM_CELLS.entries()) {
        const ours = fromEvalkit((await kernel.execute(code)).outputs);
        const want = summarise(reference[index] ?? [], jupyterDir, IMAGES);
        const got = summarise(ours, evalkitDir, IMAGES);
        if (got !== want)
          differences.push(`cell ${index}:\n${code}\n--- ipykernel:\n${want}\n--- evalkit:\n${got}`);
      }
      expect(differences.join("\n\n")).toBe("");
    },
  );
});
