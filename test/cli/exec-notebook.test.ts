// `evalkit exec NOTEBOOK.ipynb`: code cells run in order, bad notebooks exit 2, --output-notebook writes the run.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { convertCellOutputs } from "../../src/cli/notebook-output.js";
import type { CellResult } from "../../src/contracts/cell-result.js";
import { ensureBuilt } from "../helpers/build.js";
import { DEBIAN_PYTHON } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools, FIXTURES, makeTempDir, TEST_PYTHON } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PY = ["--python", TEST_PYTHON];
const ANALYSIS = path.join(FIXTURES, "notebook-analysis.ipynb");
const PLOT = path.join(FIXTURES, "notebook-plot.ipynb");
const BAD_SOURCE = path.join(FIXTURES, "notebook-bad-source.ipynb");
const R_KERNEL = path.join(FIXTURES, "notebook-r-kernel.ipynb");

type NbCell = {
  cell_type: string;
  execution_count?: number | null;
  outputs?: NbOutput[];
  [k: string]: unknown;
};
type NbOutput = { output_type: string; [k: string]: unknown };
type Nb = { cells: NbCell[]; metadata: unknown; [k: string]: unknown };

const readJson = (file: string): Nb => JSON.parse(readFileSync(file, "utf8"));
const codeCells = (nb: Nb) => nb.cells.filter((cell) => cell.cell_type === "code");

/** A notebook document around `cells` (language python unless said otherwise). */
function writeNotebook(dir: string, name: string, cells: unknown[], language = "python"): string {
  const file = path.join(dir, name);
  const metadata = { kernelspec: { display_name: language, language, name: language } };
  writeFileSync(file, JSON.stringify({ cells, metadata, nbformat: 4, nbformat_minor: 5 }, null, 1));
  return file;
}

describe("evalkit exec NOTEBOOK.ipynb", () => {
  it("prints the transcript docs/cli.md shows for the analysis notebook (times aside)", async () => {
    const docs = readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
    const start = docs.indexOf("$ evalkit exec analysis.ipynb\n");
    expect(start).toBeGreaterThan(0);
    const shown = docs.slice(docs.indexOf("\n", start) + 1, docs.indexOf("```", start));
    const dir = makeTempDir("exec-nb-docs");
    const notebook = path.join(dir, "analysis.ipynb");
    writeFileSync(notebook, readFileSync(ANALYSIS));
    const io = captureIo();
    expect(await runExec([notebook, ...PY], io)).toBe(1);
    // Times vary; Python before 3.11 marks no error columns (^^^) under the failing line.
    const normalise = (text: string) =>
      text
        .split("\n")
        .filter((line) => !/^\s+\^+\s*$/.test(line))
        .map((line) => line.replace(/\d+(\.\d+)? (µs|ns|ms|s)\b/g, "T"))
        .join("\n")
        .trimEnd();
    expect(normalise(io.out())).toBe(normalise(shown));
  });

  it("runs the code cells in order with shared state, skipping markdown, raw and empty cells", async () => {
    const io = captureIo();
    const code = await runExec([ANALYSIS, "--json", ...PY], io);
    expect(code).toBe(1);
    const cells: CellResult[] = JSON.parse(io.out()).cells;
    expect(cells.map((c) => [c.title, c.status])).toEqual([
      ["notebook-analysis.ipynb [1]", "ok"],
      ["notebook-analysis.ipynb [3]", "ok"],
      ["notebook-analysis.ipynb [4]", "ok"],
      ["notebook-analysis.ipynb [5]", "ok"],
      ["notebook-analysis.ipynb [6]", "error"],
      ["notebook-analysis.ipynb [7]", "skipped"],
    ]);
    expect(cells[0]!.text).toBe("loaded 4 rows\n");
    expect(cells[1]!.text).toContain("Wall time:"); // %%time
    expect(cells[2]!.text).toBe("shell says hi\n"); // !echo
    expect(cells[3]!.text).toBe("total=69\n{'total': 69, 'mean': 17.25}\n");
    expect(cells[4]!.error?.ename).toBe("NameError");
    expect(cells.every((c) => c.language === "py")).toBe(true);
  });

  it("shows each notebook cell under a header titled with the file name and code-cell number", async () => {
    const io = captureIo();
    expect(await runExec([ANALYSIS, ...PY], io)).toBe(1);
    expect(io.out()).toMatch(/^\[1\/6\] notebook-analysis\.ipynb \[1\] \(py\)\nloaded 4 rows\n/);
    expect(io.out()).toMatch(/\n\[5\/6\] notebook-analysis\.ipynb \[6\] \(py\)\nTraceback/);
    expect(io.out()).toMatch(/\n\[error\] NameError: name 'regions' is not defined\n/);
    expect(io.out()).toMatch(/\n\[6\/6\] notebook-analysis\.ipynb \[7\] \(py\) — skipped\n$/);
    expect(io.out()).not.toContain("Sales analysis");
  });

  it("mixes notebook cells with -c cells in command-line order, sharing one kernel", async () => {
    const io = captureIo();
    const code = await runExec(
      ["-c", "regions = 2", ANALYSIS, "-c", "print(per_region)", "--json", ...PY],
      io,
    );
    expect(code).toBe(0);
    const cells: CellResult[] = JSON.parse(io.out()).cells;
    expect(cells).toHaveLength(8);
    expect(cells[0]!.title).toBeUndefined();
    expect(cells[1]!.title).toBe("notebook-analysis.ipynb [1]");
    expect(cells[7]!.text).toBe("34.5\n");
  });

  it("runs a JavaScript notebook in the JS kernel and reads nbformat 3 worksheets", async () => {
    const dir = makeTempDir("exec-nb-js");
    const js = writeNotebook(
      dir,
      "calc.ipynb",
      [
        { cell_type: "code", metadata: {}, outputs: [], source: ["var answer = 6;\n"] },
        { cell_type: "code", metadata: {}, outputs: [], source: "answer * 7" },
      ],
      "javascript",
    );
    const jsIo = captureIo();
    expect(await runExec([js, "--json"], jsIo)).toBe(0);
    expect(JSON.parse(jsIo.out()).cells.map((c: CellResult) => [c.language, c.text])).toEqual([
      ["js", ""],
      ["js", "42\n"],
    ]);

    const v3 = path.join(dir, "old.ipynb");
    writeFileSync(
      v3,
      JSON.stringify({
        metadata: { name: "old" },
        nbformat: 3,
        nbformat_minor: 0,
        worksheets: [
          {
            cells: [
              { cell_type: "markdown", source: ["# Old"] },
              { cell_type: "code", input: ["x = 20\n"], language: "python", outputs: [] },
              { cell_type: "code", input: "print(x + 1)", language: "python", outputs: [] },
            ],
          },
        ],
      }),
    );
    const v3Io = captureIo();
    expect(await runExec([v3, "--json", ...PY], v3Io)).toBe(0);
    expect(JSON.parse(v3Io.out()).cells.map((c: CellResult) => [c.title, c.text])).toEqual([
      ["old.ipynb [1]", ""],
      ["old.ipynb [2]", "21\n"],
    ]);
  });

  it("exits 2 with one line naming the bad field, before running anything", async () => {
    const io = captureIo();
    expect(await runExec([BAD_SOURCE, ...PY], io)).toBe(2);
    expect(io.out()).toBe("");
    expect(io.err()).toBe(
      `evalkit exec: ${BAD_SOURCE}: cells[3].source must be a string or an array of strings\n`,
    );
  });

  it("exits 2 with one line for a file that is not JSON or not a notebook", async () => {
    const dir = makeTempDir("exec-nb-bad");
    const cases: [string, string, RegExp][] = [
      ["text.ipynb", "print('hello')\n", /text\.ipynb: not a Jupyter notebook: not valid JSON/],
      ["list.ipynb", "[1, 2]", /list\.ipynb: not a Jupyter notebook: expected a JSON object/],
      ["plain.ipynb", '{"cells": []}', /plain\.ipynb: not a Jupyter notebook: nbformat is missing/],
      ["future.ipynb", '{"nbformat": 5, "cells": []}', /nbformat 5 is not supported/],
      ["nocells.ipynb", '{"nbformat": 4, "metadata": {}}', /nocells\.ipynb: cells must be an array/],
    ];
    for (const [name, text, message] of cases) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      const io = captureIo();
      expect(await runExec([file, ...PY], io), name).toBe(2);
      expect(io.err(), name).toMatch(message);
      expect(io.err().trimEnd().split("\n"), name).toHaveLength(1);
    }
    const missing = captureIo();
    expect(await runExec([path.join(dir, "absent.ipynb"), ...PY], missing)).toBe(2);
    expect(missing.err()).toMatch(/absent\.ipynb: cannot read \(no such file\)/);
  });

  it("exits 2 naming the language when the notebook's kernel is neither Python nor JavaScript", async () => {
    const io = captureIo();
    expect(await runExec([R_KERNEL, ...PY], io)).toBe(2);
    expect(io.err()).toBe(
      `evalkit exec: ${R_KERNEL}: the notebook's language is "R"; evalkit runs Python and JavaScript notebooks ` +
        "(and, with --jupyter URL, any language the Jupyter server has a kernel for)\n",
    );
  });

  it("documents notebooks and --output-notebook in the exec help", async () => {
    const io = captureIo();
    expect(await runExec(["--help"], io)).toBe(0);
    expect(io.out()).toContain("evalkit exec [options] NOTEBOOK.ipynb [--output-notebook OUT.ipynb]");
  });

  it("succeeds on a notebook with no code to run, like nbconvert, and writes its copy when asked", async () => {
    const dir = makeTempDir("exec-nb-empty");
    const file = writeNotebook(dir, "notes.ipynb", [
      { cell_type: "markdown", metadata: {}, source: "just prose" },
      { cell_type: "code", metadata: {}, outputs: [], source: ["  \n"] },
    ]);
    const io = captureIo();
    const out = path.join(dir, "out.ipynb");
    expect(await runExec([file, "--output-notebook", out, ...PY], io)).toBe(0);
    expect(io.err()).toContain("notes.ipynb: no code cell to run");
    expect(readJson(out).cells.map((cell) => cell.cell_type)).toEqual(["markdown", "code"]);
  });
});

describe("evalkit exec --output-notebook", () => {
  it("writes the executed notebook: outputs and counts of run cells, skipped cells emptied, the rest unchanged", async () => {
    const out = path.join(makeTempDir("exec-nb-out"), "analysis-run.ipynb");
    const io = captureIo();
    expect(await runExec([ANALYSIS, "--output-notebook", out, ...PY], io)).toBe(1);
    const original = readJson(ANALYSIS);
    const written = readJson(out);

    expect(codeCells(written).map((c) => c.execution_count)).toEqual([1, null, 2, 3, 4, 5, null]);
    const [load, empty, timed, shell, summary, failing, skipped] = codeCells(written).map((c) => c.outputs);
    expect(load).toEqual([{ name: "stdout", output_type: "stream", text: ["loaded 4 rows\n"] }]);
    expect(empty).toEqual([]);
    expect((timed![0]!.text as string[]).join("")).toContain("Wall time:");
    expect(shell).toEqual([{ name: "stdout", output_type: "stream", text: ["shell says hi\n"] }]);
    expect(summary).toEqual([
      { name: "stdout", output_type: "stream", text: ["total=69\n"] },
      {
        data: { "text/plain": ["{'total': 69, 'mean': 17.25}"] },
        execution_count: 4,
        metadata: {},
        output_type: "execute_result",
      },
    ]);
    expect(failing).toEqual([
      {
        ename: "NameError",
        evalue: "name 'regions' is not defined",
        output_type: "error",
        traceback: expect.arrayContaining(["NameError: name 'regions' is not defined"]),
      },
    ]);
    expect(skipped).toEqual([]); // the stale output of an earlier run is gone

    // Everything but outputs and execution counts is exactly as it was, markdown and raw cells included.
    const strip = (nb: Nb) => ({
      ...nb,
      cells: nb.cells.map(({ outputs: _o, execution_count: _e, ...rest }) => rest),
    });
    expect(strip(written)).toEqual(strip(original));
    expect(written.cells.filter((c) => c.cell_type !== "code")).toEqual(
      original.cells.filter((c) => c.cell_type !== "code"),
    );
    expect(readFileSync(out, "utf8")).toMatch(/^\{\n "cells": \[\n {2}\{\n {3}"cell_type"/); // Jupyter's layout
    expect(readdirSync(path.dirname(out))).toEqual(["analysis-run.ipynb"]); // no temp file left
  });

  it("can overwrite the notebook it ran (the write replaces the file at the end)", async () => {
    const dir = makeTempDir("exec-nb-inplace");
    const file = writeNotebook(dir, "inplace.ipynb", [
      { cell_type: "code", execution_count: 9, metadata: {}, outputs: [], source: "print('fresh')" },
    ]);
    expect(await runExec([file, "--output-notebook", file, ...PY], captureIo())).toBe(0);
    const cell = codeCells(readJson(file))[0]!;
    expect([cell.execution_count, cell.outputs]).toEqual([
      1,
      [{ name: "stdout", output_type: "stream", text: ["fresh\n"] }],
    ]);
  });

  it("exits 2 before running unless exactly one nbformat 4 notebook is given and the directory exists", async () => {
    const dir = makeTempDir("exec-nb-usage");
    const marker = path.join(dir, "ran.txt");
    const touch = `open(${JSON.stringify(marker)}, "w").write("ran")`;
    const v3 = path.join(dir, "v3.ipynb");
    writeFileSync(v3, JSON.stringify({ nbformat: 3, metadata: {}, worksheets: [{ cells: [] }] }));
    const cases: [string[], RegExp][] = [
      [["-c", touch, "--output-notebook", path.join(dir, "o.ipynb")], /exactly one \.ipynb input, got none/],
      [["-c", touch, ANALYSIS, PLOT, "--output-notebook", path.join(dir, "o.ipynb")], /got 2/],
      [["-c", touch, v3, "--output-notebook", path.join(dir, "o.ipynb")], /needs an nbformat 4 notebook/],
      [["-c", touch, ANALYSIS, "--output-notebook", path.join(dir, "nope", "o.ipynb")], /no such directory/],
      [["-c", touch, ANALYSIS, "--output-notebook", dir], /is a directory/],
      [["-c", touch, ANALYSIS, "--output-notebook", `${dir}/`], /is a directory/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await runExec([...argv, ...PY], io), argv.join(" ")).toBe(2);
      expect(io.err()).toMatch(message);
    }
    expect(existsSync(marker)).toBe(false);
  });

  const plotSkip = librarySkipReason(DEBIAN_PYTHON, ["matplotlib"]);
  it.skipIf(plotSkip !== undefined)(
    titleWithSkip("writes a matplotlib figure as a base64 PNG display_data output", plotSkip),
    async () => {
      const out = path.join(makeTempDir("exec-nb-plot"), "plot-run.ipynb");
      const io = captureIo();
      expect(await runExec([PLOT, "--output-notebook", out, "--python", DEBIAN_PYTHON], io), io.out()).toBe(
        0,
      );
      const [setup, plot] = codeCells(readJson(out));
      expect(setup!.outputs).toEqual([]);
      expect(plot!.execution_count).toBe(2);
      const display = plot!.outputs!.find((o) => o.output_type === "display_data");
      const data = display?.data as Record<string, unknown>;
      expect(typeof data["image/png"]).toBe("string");
      const png = Buffer.from(data["image/png"] as string, "base64");
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.length).toBeGreaterThan(1000);
      expect(data["text/plain"]).toEqual(["<Figure size 300x200 with 1 Axes>"]);
    },
    60_000,
  );
});

describe("convertCellOutputs", () => {
  const result = (outputs: CellResult["outputs"], extra: Partial<CellResult> = {}): CellResult => ({
    index: 0,
    language: "py",
    status: "ok",
    executionCount: 3,
    durationMs: 1,
    text: "",
    outputs,
    ...extra,
  });

  it("merges adjacent streams of one name and drops evalkit status events", () => {
    const converted = convertCellOutputs(
      result([
        { type: "stream", name: "stdout", text: "a\nb" },
        { type: "status", event: { op: "time" } },
        { type: "stream", name: "stdout", text: "c\n" },
        { type: "stream", name: "stderr", text: "warn\n" },
      ]),
    );
    expect(converted).toEqual([
      { name: "stdout", output_type: "stream", text: ["a\n", "bc\n"] },
      { name: "stderr", output_type: "stream", text: ["warn\n"] },
    ]);
  });

  it("leaves pager text (obj?, %pinfo) out of the notebook, as Jupyter does, and keeps other displays", () => {
    const converted = convertCellOutputs(
      result([
        {
          type: "display",
          data: { "text/plain": "Signature: len(obj, /)" },
          metadata: { evalkit: { pager: true } },
        },
        { type: "display", data: { "text/plain": "shown" }, metadata: { evalkit: { other: 1 }, kept: 2 } },
      ]),
    );
    // evalkit's own metadata key is not Jupyter's: the saved notebook leaves it out
    expect(converted).toEqual([
      { data: { "text/plain": ["shown"] }, metadata: { kept: 2 }, output_type: "display_data" },
    ]);
  });

  it("leaves out the MIME types the kernel added for the model only (a DataFrame's markdown, a Series' HTML)", () => {
    const converted = convertCellOutputs(
      result([
        {
          type: "result",
          data: {
            "text/plain": "0    1\ndtype: int64",
            "text/html": "<table/>",
            "text/markdown": "| 0 | 1 |",
          },
          metadata: { evalkit: { modelOnly: ["text/html", "text/markdown"] } },
        },
        {
          type: "display",
          data: { "text/plain": "   a\n0  1", "text/html": "<table/>", "text/markdown": "| a |" },
          metadata: { evalkit: { modelOnly: ["text/markdown"] }, "text/html": { isolated: true } },
        },
      ]),
    );
    expect(converted).toEqual([
      {
        data: { "text/plain": ["0    1\n", "dtype: int64"] },
        execution_count: 3,
        metadata: {},
        output_type: "execute_result",
      },
      {
        data: { "text/plain": ["   a\n", "0  1"], "text/html": ["<table/>"] },
        metadata: { "text/html": { isolated: true } },
        output_type: "display_data",
      },
    ]);
  });

  it("applies clear_output, at once or (wait) just before the next output", () => {
    const converted = convertCellOutputs(
      result([
        { type: "stream", name: "stdout", text: "gone\n" },
        { type: "clear_output", wait: false },
        { type: "stream", name: "stdout", text: "kept until the next output\n" },
        { type: "clear_output", wait: true },
        { type: "display", data: { "text/plain": "last" } },
        { type: "clear_output", wait: true },
      ]),
    );
    expect(converted).toEqual([
      { data: { "text/plain": ["last"] }, metadata: {}, output_type: "display_data" },
    ]);
  });

  it("writes a display update into the display it updates, even one from an earlier cell", () => {
    const displays = new Map();
    const first = convertCellOutputs(
      result([{ type: "display", data: { "text/plain": "0%" }, displayId: "bar" }]),
      displays,
    );
    const second = convertCellOutputs(
      result([
        {
          type: "display",
          data: { "text/plain": "100%" },
          metadata: { m: 1 },
          displayId: "bar",
          update: true,
        },
        { type: "display", data: { "text/plain": "unknown id" }, displayId: "other", update: true },
      ]),
      displays,
    );
    expect(first).toEqual([
      { data: { "text/plain": ["100%"] }, metadata: { m: 1 }, output_type: "display_data" },
    ]);
    expect(second).toEqual([]);
  });

  it("keeps JSON and image payloads whole and says why a cell that left no error stopped", () => {
    const converted = convertCellOutputs(
      result(
        [
          {
            type: "result",
            data: {
              "application/json": { a: [1] },
              "image/png": "iVBORw0K",
              "text/html": "<b>x</b>\n<i>y</i>",
            },
          },
        ],
        { status: "killed", executionCount: 4, notices: ["kernel killed: out of memory"] },
      ),
    );
    expect(converted).toEqual([
      {
        data: {
          "application/json": { a: [1] },
          "image/png": "iVBORw0K",
          "text/html": ["<b>x</b>\n", "<i>y</i>"],
        },
        execution_count: 4,
        metadata: {},
        output_type: "execute_result",
      },
      { name: "stderr", output_type: "stream", text: ["kernel killed: out of memory\n"] },
    ]);
  });
});

describe("evalkit exec NOTEBOOK.ipynb (the installed command)", () => {
  beforeAll(async () => {
    // `npm test` builds first; a bare `vitest run` on a stale or fresh tree builds the bundle here.
    await ensureBuilt();
  }, 180_000);

  it("still writes the executed notebook when the reader of its output goes away (| head)", async () => {
    const dir = makeTempDir("exec-nb-epipe");
    const file = writeNotebook(dir, "long.ipynb", [
      {
        cell_type: "code",
        metadata: {},
        outputs: [],
        source: "for i in range(20000):\n    print('line', i)",
      },
      { cell_type: "code", metadata: {}, outputs: [], source: "print('second cell')" },
    ]);
    const out = path.join(dir, "out.ipynb");
    const child = spawn(process.execPath, [
      path.join(ROOT, "bin", "evalkit.js"),
      "exec",
      file,
      "--output-notebook",
      out,
      ...PY,
    ]);
    child.stdout.once("data", () => child.stdout.destroy());
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
    expect(codeCells(readJson(out)).map((cell) => cell.execution_count)).toEqual([1, 2]);
  });

  it("exits 2 for a bad notebook with one line and no stack trace, and runs a good one", () => {
    const evalkit = (args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), "exec", ...args], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, EVALKIT_PYTHON: TEST_PYTHON },
        timeout: 60_000,
      });
    const bad = evalkit([BAD_SOURCE]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      `evalkit exec: ${BAD_SOURCE}: cells[3].source must be a string or an array of strings\n`,
    );
    const good = evalkit([ANALYSIS, "--json"]);
    expect(good.status).toBe(1);
    expect(JSON.parse(good.stdout).cells).toHaveLength(6);
  });
});
