// Differential check on both library legs: common notebook idioms run through evalkit and through a real
// ipykernel on the same interpreter must show the same text (streams, text/plain, errors) and the same images.

import { describe, expect, it } from "vitest";
import { DEBIAN_PYTHON, findCurrentLegPython } from "../helpers/interpreters.js";
import { findMissingModules } from "../helpers/libraries.js";
import { startKernel } from "../helpers/python.js";
import { listDifferences, runInIpykernel, scratch } from "./ipykernel-compare.js";
import { IDIOM_CELLS } from "./ipykernel-idioms.js";

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

describe.each(LEGS)("common notebook idioms on the $name leg", (l) => {
  it.skipIf(l.skip !== undefined)(
    `show the same text and images in evalkit as in ipykernel (${IDIOM_CELLS.length} cells)`,
    { timeout: 240_000 },
    async () => {
      const python = l.python as string;
      expect(findMissingModules(python, JUPYTER), `${python} must have ${JUPYTER.join(", ")}`).toEqual([]);
      const jupyterDir = scratch();
      const reference = runInIpykernel(python, IDIOM_CELLS, jupyterDir);
      const evalkitDir = scratch();
      const kernel = await startKernel({ python, cwd: evalkitDir });
      const differences = await listDifferences(
        IDIOM_CELLS,
        reference,
        { jupyter: jupyterDir, evalkit: evalkitDir },
        (code) => kernel.execute(code),
      );
      expect(differences.join("\n\n")).toBe("");
    },
  );
});
