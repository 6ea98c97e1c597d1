// IPython's extension API in real kernels: a real extension from pip's index (python-dotenv's %dotenv) with and
// without IPython installed, and the extension cells on an interpreter without IPython compared with ipykernel.

import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEBIAN_PYTHON, findCurrentLegPython, findSupportedInterpreters } from "../helpers/interpreters.js";
import { findMissingModules } from "../helpers/libraries.js";
import { startKernel } from "../helpers/python.js";
import { listDifferences, runInIpykernel, scratch } from "./ipykernel-compare.js";
import { EXTENSION_CELLS } from "./ipykernel-idioms.js";
import { describeOutputs, runOk } from "./magics-helpers.js";

// CI installs the libraries (.ci/run) and sets EVALKIT_REQUIRE_PYTHON_LIBS=1: there a gap fails instead of skipping.
const isRequired = process.env.EVALKIT_REQUIRE_PYTHON_LIBS === "1";
// pyenv's CPythons have no IPython: there evalkit serves IPython.core.magic and friends itself.
const WITHOUT_IPYTHON = [...findSupportedInterpreters().values()].find(
  (python) => findMissingModules(python, ["IPython"]).length > 0,
);
const CURRENT = findCurrentLegPython();
const JUPYTER = ["ipykernel", "jupyter_client", "IPython"];

function skipReason(ok: boolean, reason: string): string | undefined {
  if (ok) return undefined;
  if (isRequired) return undefined; // run, and fail on what is missing
  console.warn(`skipping: ${reason}`);
  return reason;
}

/** python-dotenv installed into a fresh directory by the interpreter's own pip (pip's index, no network). */
function installDotenv(python: string): string {
  const target = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-dotenv-")));
  execFileSync(python, ["-m", "pip", "install", "-q", "--no-deps", "--target", target, "python-dotenv"], {
    env: { ...process.env, PIP_RETRIES: "0", PIP_DISABLE_PIP_VERSION_CHECK: "1" },
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 120_000,
  });
  return target;
}

function projectWithEnvFile(): string {
  const dir = scratch();
  writeFileSync(join(dir, ".env"), "GREETING=hello from .env\n");
  return dir;
}

const DOTENV_CELLS = [
  "%load_ext dotenv",
  "%dotenv\nimport os\nos.environ['GREETING']",
  "%dotenv --bogus",
  "%load_ext dotenv",
] as const;

async function checkDotenv(python: string, env: Record<string, string>) {
  const kernel = await startKernel({ python, cwd: projectWithEnvFile(), env });
  const [load, use, bad, again] = DOTENV_CELLS;
  expect((await runOk(kernel, load)).stdout).toBe("");
  expect((await runOk(kernel, use)).result).toBe("'hello from .env'");
  const refused = describeOutputs(await kernel.execute(bad));
  expect(refused.outcome.error?.ename).toBe("UsageError");
  expect(refused.outcome.error?.evalue).toBe("unrecognized arguments: --bogus");
  expect((await runOk(kernel, again)).stdout).toBe(
    "The dotenv extension is already loaded. To reload it, use:\n  %reload_ext dotenv\n",
  );
}

describe("python-dotenv's %dotenv, a real IPython extension", () => {
  const withIpython = skipReason(
    CURRENT !== undefined && findMissingModules(CURRENT, ["IPython", "dotenv"]).length === 0,
    "no current-library venv with IPython and python-dotenv (run .ci/run: it makes .venv-current)",
  );
  it.skipIf(withIpython !== undefined)(
    "loads with %load_ext and reads .env through IPython's own Magics and magic_arguments",
    { timeout: 60_000 },
    async () => {
      expect(CURRENT, "the current-library venv").toBeDefined();
      await checkDotenv(CURRENT as string, { ...(process.env as Record<string, string>) });
    },
  );

  const withoutIpython = skipReason(WITHOUT_IPYTHON !== undefined, "every CPython found has IPython");
  it.skipIf(withoutIpython !== undefined)(
    "loads on an interpreter without IPython, through evalkit's stand-in IPython.core.magic modules",
    { timeout: 120_000 },
    async () => {
      const python = WITHOUT_IPYTHON as string;
      const site = installDotenv(python);
      await checkDotenv(python, { ...(process.env as Record<string, string>), PYTHONPATH: site });
    },
  );
});

describe("IPython's extension API on an interpreter without IPython", () => {
  const reason = skipReason(
    WITHOUT_IPYTHON !== undefined && findMissingModules(DEBIAN_PYTHON, JUPYTER).length === 0,
    "needs a CPython without IPython and Debian's ipykernel (apt-get install python3-ipykernel)",
  );
  it.skipIf(reason !== undefined)(
    `shows what ipykernel shows for the extension cells (${EXTENSION_CELLS.length} cells)`,
    { timeout: 120_000 },
    async () => {
      const jupyterDir = scratch();
      const reference = runInIpykernel(DEBIAN_PYTHON, EXTENSION_CELLS, jupyterDir);
      const evalkitDir = scratch();
      const kernel = await startKernel({ python: WITHOUT_IPYTHON as string, cwd: evalkitDir });
      const differences = await listDifferences(
        EXTENSION_CELLS,
        reference,
        { jupyter: jupyterDir, evalkit: evalkitDir },
        (code) => kernel.execute(code),
      );
      expect(differences.join("\n\n")).toBe("");
    },
  );

  it.skipIf(WITHOUT_IPYTHON === undefined)(
    "keeps IPython missing for libraries that probe for it, after a cell used IPython.core.magic",
    async () => {
      const kernel = await startKernel({ python: WITHOUT_IPYTHON as string });
      await runOk(
        kernel,
        "from IPython.core.magic import register_line_magic\n@register_line_magic\ndef m(line):\n    return line",
      );
      const probe = describeOutputs(await kernel.execute("import IPython"));
      expect(probe.outcome.error?.ename).toBe("ModuleNotFoundError");
      const still = await runOk(
        kernel,
        "import builtins\nfrom IPython.core.magic import Magics\nr = %m again\nbuiltins.get_ipython() is None, r",
      );
      expect(still.result).toBe("(True, 'again')");
    },
  );
});
