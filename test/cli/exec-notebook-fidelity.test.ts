// `evalkit exec --output-notebook --allow-errors` saves what Jupyter saves: the same notebook run by nbclient
// (`jupyter nbconvert --execute --allow-errors`) in a real ipykernel gives the same outputs, MIME bundles and images.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { DEBIAN_PYTHON } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools, makeTempDir, TEST_PYTHON } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const DRIVER = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures",
  "nbclient-run-notebook.py",
);

type NbOutput = { output_type: string; [k: string]: unknown };
type NbCell = { cell_type: string; execution_count?: number | null; outputs?: NbOutput[] };

const CELLS = [
  "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': [3.5, None]})\ndf",
  "df['a']",
  "print('hi')\ndisplay(df.head(1), df['b'])",
  "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])",
  "fig, ax = plt.subplots(figsize=(3, 2))\nax.set_title('small')\nax.plot([3, 1])",
  "1/0",
  "from IPython.display import HTML, Markdown\ndisplay(HTML('<b>x</b>'), Markdown('*y*'))",
  "len?",
  "import numpy as np\nx = 41\nprint(x)\nnp.arange(3) + x",
  "undefined_name",
  "x + 1",
  // custom magics and an extension, as notebooks bring tools in
  "%%writefile shout_ext.py\nfrom IPython.core.magic import Magics, magics_class, line_magic, cell_magic\n@magics_class\nclass Shout(Magics):\n    @line_magic\n    def shout(self, line):\n        return line.upper() + '!'\n    @cell_magic\n    def lines(self, line, cell):\n        print(len(cell.splitlines()), 'lines')\ndef load_ipython_extension(ip):\n    ip.register_magics(Shout)",
  "%load_ext shout_ext",
  "%shout hello",
  "%%lines\na\nb",
  "from IPython.core.magic import register_line_magic\n@register_line_magic\ndef twice(line):\n    return line * 2\n%twice ab",
];

function writeNotebook(dir: string): string {
  const file = path.join(dir, "fidelity.ipynb");
  const cells = CELLS.map((source) => ({
    cell_type: "code",
    execution_count: null,
    metadata: {},
    outputs: [],
    source,
  }));
  const metadata = { kernelspec: { display_name: "Python 3", language: "python", name: "python3" } };
  writeFileSync(file, JSON.stringify({ cells, metadata, nbformat: 4, nbformat_minor: 5 }, null, 1));
  return file;
}

/** The width and height of a base64 PNG (its IHDR chunk). */
function pngSize(base64: string): string {
  const bytes = Buffer.from(base64.replace(/\n/g, ""), "base64");
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

/** What a Jupyter reader sees of one output: type, MIME types and their content (images by size). */
function describeOutput(output: NbOutput): unknown {
  if (output.output_type === "error") return { error: `${output.ename}: ${output.evalue}` };
  if (output.output_type === "stream") return { [String(output.name)]: [output.text].flat().join("") };
  const data = output.data as Record<string, unknown>;
  const shown: Record<string, unknown> = {};
  for (const mime of Object.keys(data).sort()) {
    const value = data[mime];
    const text = Array.isArray(value) ? value.join("") : value;
    shown[mime] = mime === "image/png" ? pngSize(String(text)) : String(text).replace(/0x[0-9a-f]+/g, "0x");
  }
  return { [output.output_type]: shown, metadata: output.metadata, count: output.execution_count };
}

function describeNotebook(file: string): unknown[] {
  const cells = (JSON.parse(readFileSync(file, "utf8")) as { cells: NbCell[] }).cells;
  return cells.map((cell) => ({
    count: cell.execution_count,
    outputs: (cell.outputs ?? []).map(describeOutput),
  }));
}

describe("evalkit exec --output-notebook compared with nbclient on the same notebook", () => {
  const skip = librarySkipReason(DEBIAN_PYTHON, [
    "ipykernel",
    "nbclient",
    "nbformat",
    "pandas",
    "matplotlib",
  ]);
  it.skipIf(skip !== undefined)(
    titleWithSkip(
      "saves the MIME bundles IPython saves (no model-only tables), figures cropped as the inline backend crops them, every cell's error with --allow-errors, and custom magics and %load_ext run alike",
      skip,
    ),
    { timeout: 180_000 },
    async () => {
      const dir = makeTempDir("nb-fidelity");
      const source = writeNotebook(dir);
      const jupyterOut = path.join(dir, "jupyter.ipynb");
      execFileSync(DEBIAN_PYTHON, [DRIVER, source, jupyterOut, dir], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 150_000,
        env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" },
      });
      const evalkitOut = path.join(dir, "evalkit.ipynb");
      const io = captureIo();
      const args = [source, "--output-notebook", evalkitOut, "--allow-errors", "--python", DEBIAN_PYTHON];
      // each side in its own directory: the notebook writes a file there
      expect(await runExec([...args, "--cwd", makeTempDir("nb-fidelity-evalkit")], io), io.err()).toBe(0);
      const want = describeNotebook(jupyterOut);
      const got = describeNotebook(evalkitOut);
      expect(got).toEqual(want);
      // what the comparison covers: a DataFrame's HTML, a Series as text only, a cropped figure, both errors
      const flat = JSON.stringify(got);
      expect(flat).toContain("HELLO!");
      expect(flat).toContain("'abab'");
      expect(flat).toContain('"text/html"');
      expect(flat).not.toContain("text/markdown</");
      expect(flat).toContain("ZeroDivisionError");
      expect(flat).toContain("NameError");
    },
  );
});

describe("evalkit exec --allow-errors", () => {
  it("runs every cell after one raises and exits 0, as nbconvert --allow-errors does", async () => {
    const io = captureIo();
    const code = await runExec(
      [
        "-c",
        "print('one')",
        "-c",
        "1/0",
        "-c",
        "print('three')",
        "--allow-errors",
        "--python",
        TEST_PYTHON,
        "--json",
      ],
      io,
    );
    expect(code).toBe(0);
    const details = JSON.parse(io.out()) as { ok: boolean; cells: { status: string; text: string }[] };
    expect(details.cells.map((cell) => cell.status)).toEqual(["ok", "error", "ok"]);
    expect(details.cells[2]?.text).toBe("three\n");
    expect(details.ok).toBe(false);
  });

  it("still stops at a timeout and exits 1, as nbconvert does", async () => {
    const io = captureIo();
    const code = await runExec(
      [
        "-c",
        "import time; time.sleep(30)",
        "-c",
        "print('never')",
        "--allow-errors",
        "--timeout",
        "1",
      ].concat(["--python", TEST_PYTHON, "--json"]),
      io,
    );
    expect(code).toBe(1);
    const details = JSON.parse(io.out()) as { cells: { status: string }[] };
    expect(details.cells.map((cell) => cell.status)).toEqual(["timeout", "skipped"]);
  });

  it("without the flag stops at the first error and exits 1", async () => {
    const io = captureIo();
    const code = await runExec(["-c", "1/0", "-c", "print('two')", "--python", TEST_PYTHON, "--json"], io);
    expect(code).toBe(1);
    const details = JSON.parse(io.out()) as { cells: { status: string }[] };
    expect(details.cells.map((cell) => cell.status)).toEqual(["error", "skipped"]);
  });
});
