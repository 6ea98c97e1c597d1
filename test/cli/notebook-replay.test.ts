// Replays a public notebook (bench/notebooks) with `evalkit exec --output-notebook` and compares each cell's text
// with the output Jupyter stored; the full replay against a live Jupyter kernel is bench/notebook-replay.py.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { DEBIAN_PYTHON } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { cleanupTools, makeTempDir } from "../tool/tool-helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const NOTEBOOK = path.join(ROOT, "bench", "notebooks", "02.01-Understanding-Data-Types.ipynb");

type Output = {
  output_type: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
};
type Cell = { cell_type: string; outputs?: Output[] };

const join = (value: unknown) =>
  Array.isArray(value) ? value.join("") : typeof value === "string" ? value : "";

/** The text a reader compares: streams and text/plain, without memory addresses and trailing blanks. */
function normalise(outputs: Output[] = []): string {
  const text = outputs
    .map((o) =>
      o.output_type === "stream"
        ? join(o.text)
        : o.output_type === "error"
          ? `${o.ename}\n`
          : `${join(o.data?.["text/plain"])}\n`,
    )
    .join("")
    .replace(/0x[0-9a-fA-F]+/g, "0x");
  return text
    .trim()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");
}

afterEach(cleanupTools);

const skip = librarySkipReason(DEBIAN_PYTHON, ["numpy"]);

describe("replaying a stored public notebook", () => {
  it.skipIf(skip !== undefined)(
    titleWithSkip("reproduces the stored text of every cell Jupyter reproduces (18 of 21 in 02.01)", skip),
    async () => {
      await ensureBuilt();
      const out = path.join(makeTempDir(), "out.ipynb");
      const run = spawnSync(
        "node",
        [
          path.join(ROOT, "bin", "evalkit.js"),
          "exec",
          "--python",
          DEBIAN_PYTHON,
          NOTEBOOK,
          "--output-notebook",
          out,
        ],
        { encoding: "utf8", timeout: 120_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      const stored = (JSON.parse(readFileSync(NOTEBOOK, "utf8")).cells as Cell[]).filter(
        (c) => c.cell_type === "code",
      );
      const replayed = (JSON.parse(readFileSync(out, "utf8")).cells as Cell[]).filter(
        (c) => c.cell_type === "code",
      );
      expect(replayed).toHaveLength(stored.length);
      const matching = stored.filter(
        (cell, i) => normalise(cell.outputs) === normalise(replayed[i]?.outputs),
      );
      // The three others print numbers that differ between the book's numpy and any numpy installed today.
      expect(matching.length).toBeGreaterThanOrEqual(18);
    },
  );
});
