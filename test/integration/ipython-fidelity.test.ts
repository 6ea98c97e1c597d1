// IPython fidelity on two library legs: Debian's python3 (IPython 8, pandas 1.x/2.x) and a venv of today's
// libraries (IPython 9, pandas 3, polars): results, automagic, history, prompts, display formatter, introspection.

import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PythonKernel } from "../../src/kernel/python/python-kernel.js";
import { DEBIAN_PYTHON, findCurrentLegPython } from "../helpers/interpreters.js";
import { findMissingModules } from "../helpers/libraries.js";
import { startKernel } from "../helpers/python.js";
import { describeOutputs, runOk } from "./magics-helpers.js";

const NEEDED = ["IPython", "pandas"];
// CI installs both legs and sets EVALKIT_REQUIRE_PYTHON_LIBS=1: there a missing library fails instead of skipping.
const isRequired = process.env.EVALKIT_REQUIRE_PYTHON_LIBS === "1";

function missingModules(python: string, modules: string[]): string[] {
  return existsSync(python) ? findMissingModules(python, modules) : modules;
}

interface Leg {
  name: string;
  python: string | undefined;
  skip: string | undefined;
  polars: boolean;
}

function debianLeg(): Leg {
  const missing = missingModules(DEBIAN_PYTHON, NEEDED);
  const skip =
    missing.length > 0 && !isRequired
      ? `${DEBIAN_PYTHON} lacks ${missing.join(", ")} (apt-get install python3-pandas python3-ipykernel)`
      : undefined;
  return { name: "Debian", python: DEBIAN_PYTHON, skip, polars: false };
}

function currentLeg(): Leg {
  const python = findCurrentLegPython();
  if (!python) {
    return {
      name: "current",
      python,
      skip: "no current-library venv: set EVALKIT_TEST_PYTHON_CURRENT or run .ci/run (it makes .venv-current)",
      polars: true,
    };
  }
  const missing = missingModules(python, [...NEEDED, "polars"]);
  const skip = missing.length > 0 && !isRequired ? `${python} lacks ${missing.join(", ")}` : undefined;
  return { name: "current", python, skip, polars: true };
}

const LEGS = [debianLeg(), currentLeg()];
for (const leg of LEGS) {
  if (leg.skip) console.warn(`skipping IPython fidelity on the ${leg.name} leg: ${leg.skip}`);
}

// Values whose text/plain must equal IPython.lib.pretty.pretty() of the same value on the same interpreter.
const SAMPLES = `
import collections, re, types
class Plain: pass
class Two:
    def __repr__(self): return "a\\nb"
samples = [type(1.0), int, {'b': 1, 'a': 2}, {3, 1, 2}, frozenset({2, 1}), set(), list(range(40)), (1,),
    {'k' * 30: list(range(12)), 'z': {'a' * 40: 'b' * 40}}, collections.OrderedDict(a=1),
    collections.defaultdict(list, a=[1]), collections.Counter('abca'), collections.Counter('abbccc'), collections.deque([1, 2]),
    re.compile('a+', re.I), types.SimpleNamespace(a=1, b='x'), len, ValueError('x', 2), Plain,
    [Two(), Two()], ['x' * 50, 'y' * 50], [[1, 2], [3, 4]] * 12, list(range(1200))]
`;

function scratchDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "evalkit-fidelity-")));
}

describe.each(LEGS)("IPython fidelity on the $name leg", (leg) => {
  let kernel: PythonKernel;
  const start = async () => {
    kernel = await startKernel({ python: leg.python as string });
    return kernel;
  };

  beforeAll(() => {
    if (isRequired && leg.python) {
      expect(missingModules(leg.python, NEEDED), `${leg.python} must have ${NEEDED.join(", ")}`).toEqual([]);
    }
  });

  it.skipIf(leg.skip !== undefined)(
    "prints results exactly as the leg's own IPython pretty printer does",
    async () => {
      await start();
      await runOk(kernel, SAMPLES);
      const expected = JSON.parse(
        (
          await runOk(
            kernel,
            "import json\nfrom IPython.lib.pretty import pretty\nprint(json.dumps([pretty(s) for s in samples]))",
          )
        ).stdout,
      ) as string[];
      expect(expected.length).toBeGreaterThan(20);
      for (const [index, text] of expected.entries()) {
        expect((await runOk(kernel, `samples[${index}]`)).result, `samples[${index}]`).toBe(text);
      }
      expect((await runOk(kernel, "type(1.0)")).result).toBe("float");
      expect((await runOk(kernel, "Plain()")).result).toMatch(/^<__main__\.Plain at 0x[0-9a-f]+>$/);
    },
  );

  it.skipIf(leg.skip !== undefined)(
    "runs bare shell aliases and magics (automagic) unless the name is a variable",
    async () => {
      await start();
      const dir = scratchDir();
      await runOk(kernel, `%cd -q ${dir}`);
      expect((await runOk(kernel, "pwd")).result).toBe(`'${dir}'`);
      await runOk(kernel, "mkdir sub");
      writeFileSync(join(dir, "a.txt"), "alpha\n");
      expect((await runOk(kernel, "ls")).stdout).toBe("a.txt\nsub/\n");
      expect((await runOk(kernel, "cat a.txt")).stdout).toBe("alpha\n");
      await runOk(kernel, "ls = ['mine']");
      expect((await runOk(kernel, "ls")).result).toBe("['mine']");
    },
  );

  it.skipIf(leg.skip !== undefined)(
    "has %%file, script magics named by interpreter and warns on front-end-only magics",
    async () => {
      await start();
      const path = join(scratchDir(), "f.txt");
      expect((await runOk(kernel, `%%file ${path}\nhello`)).stdout).toBe(`Writing ${path}\n`);
      expect(readFileSync(path, "utf8")).toBe("hello\n");
      expect((await runOk(kernel, "%%python3\nimport sys\nprint(sys.version_info[0])")).stdout).toBe("3\n");
      expect((await runOk(kernel, "%%sh\necho from sh")).stdout).toBe("from sh\n");
      expect((await runOk(kernel, '%%perl\nprint "from perl\\n";')).stdout).toBe("from perl\n");
      expect((await runOk(kernel, "%%script evalkit-no-such-program\n1")).stdout).toBe(
        "Couldn't find program: 'evalkit-no-such-program'\n",
      );
      const qt = await runOk(kernel, "%qtconsole");
      expect(qt.stderr).toContain("%qtconsole needs an interactive front end");
    },
  );

  it.skipIf(leg.skip !== undefined)(
    "keeps IPython's input history: _i is the previous cell, %history -n takes ranges",
    async () => {
      await start();
      await runOk(kernel, "10");
      await runOk(kernel, "20\n");
      await runOk(kernel, "30");
      expect((await runOk(kernel, "(_i, _ii, _iii, _i2, In[1], In[4][:3])")).result).toBe(
        "('30', '20', '10', '20', '10', '(_i')",
      );
      expect((await runOk(kernel, "%history -n 1-2")).stdout).toBe("   1: 10\n   2: 20\n");
      expect((await runOk(kernel, "%history 3")).stdout).toBe("30\n");
      await runOk(kernel, "def f():\n    return 1");
      expect((await runOk(kernel, "%history -n 7")).stdout).toBe("   7:\ndef f():\n    return 1\n");
    },
  );

  it.skipIf(leg.skip !== undefined)("strips pasted >>> and In [n]: prompts", async () => {
    await start();
    expect((await runOk(kernel, ">>> x = 2\n>>> x * 3")).result).toBe("6");
    expect(
      (await runOk(kernel, "In [4]: def g(a):\n   ...:     return a + 1\n   ...: \n")).outcome.status,
    ).toBe("ok");
    expect((await runOk(kernel, "g(1)")).result).toBe("2");
  });

  it.skipIf(leg.skip !== undefined)(
    "shows display cell magics with IPython's object repr as text/plain",
    async () => {
      await start();
      const html = await runOk(kernel, "%%html\n<b>bold</b>");
      expect(html.displays.map((d) => d.data)).toEqual([
        { "text/html": "<b>bold</b>", "text/plain": "<IPython.core.display.HTML object>" },
      ]);
      const js = await runOk(kernel, "%%javascript\nconsole.log(1)");
      expect(js.displays[0]?.data["text/plain"]).toBe("<IPython.core.display.Javascript object>");
    },
  );

  it.skipIf(leg.skip !== undefined)(
    "has get_ipython().display_formatter with per-MIME for_type, enabled and _ipython_display_",
    async () => {
      await start();
      await runOk(
        kernel,
        [
          "fmt = get_ipython().display_formatter",
          "fmt.formatters['text/plain'].for_type(complex, lambda z, p, cycle: p.text('C(%g, %g)' % (z.real, z.imag)))",
          "fmt.formatters['text/html'].for_type_by_name('builtins', 'complex', lambda z: '<i>z</i>')",
        ].join("\n"),
      );
      const z = await runOk(kernel, "[1j]");
      expect(z.result).toBe("[C(0, 1)]");
      expect((await runOk(kernel, "2j")).results[0]?.data).toEqual({
        "text/plain": "C(0, 2)",
        "text/html": "<i>z</i>",
      });
      await runOk(kernel, "fmt.formatters['text/html'].enabled = False");
      expect((await runOk(kernel, "2j")).results[0]?.data).toEqual({ "text/plain": "C(0, 2)" });
      const own = await runOk(
        kernel,
        "class Own:\n    def _ipython_display_(self):\n        display({'text/plain': 'own view'}, raw=True)\nOwn()",
      );
      expect(own.results).toEqual([]);
      expect(own.displays.map((d) => d.data)).toEqual([{ "text/plain": "own view" }]);
      const data = await runOk(kernel, "display({'a': [1, 2]})\ndisplay([1, 'x'])");
      expect(data.displays.map((d) => d.data["application/json"])).toEqual([{ a: [1, 2] }, [1, "x"]]);
    },
  );

  it.skipIf(leg.skip !== undefined)("answers ?obj, *pattern*? and %pinfo with text", async () => {
    await start();
    expect((await runOk(kernel, "?len")).pager).toContain("Return the number of items in a container.");
    expect((await runOk(kernel, "%pinfo len")).pager).toContain("Signature: len(obj, /)");
    expect((await runOk(kernel, "?")).pager).toContain("%timeit");
    const found = (await runOk(kernel, "*int*?")).pager.split("\n");
    expect(found).toContain("int");
    expect(found).toContain("print");
    const quietly = describeOutputs(await kernel.execute("?no_such_name_here"));
    expect(quietly.outcome.error?.ename).toBe("UsageError");
  });

  it.skipIf(leg.skip !== undefined)("gives pandas DataFrames a markdown table for the model", async () => {
    await start();
    const run = await runOk(kernel, "import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})");
    expect(run.results[0]?.data["text/markdown"]).toBe(
      "|  | a | b |\n|---|---|---|\n| 0 | 1 | x |\n| 1 | 2 | y |",
    );
  });

  it.skipIf(leg.skip !== undefined || !leg.polars)(
    `gives polars DataFrames and Series a markdown table with shape and dtypes${leg.polars ? "" : " (Debian packages no polars)"}`,
    async () => {
      await start();
      const frame = await runOk(
        kernel,
        "import polars as pl\ndf = pl.DataFrame({'a': [1, 2], 'b': ['x', None]})\ndf",
      );
      expect(frame.results[0]?.data["text/markdown"]).toBe(
        '| a / i64 | b / str |\n|---|---|\n| 1 | "x" |\n| 2 | null |\n\nshape: (2, 2)',
      );
      const series = await runOk(kernel, "df['a']");
      expect(series.results[0]?.data["text/markdown"]).toBe(
        "| a / i64 |\n|---|\n| 1 |\n| 2 |\n\nshape: (2,), name: a, dtype: Int64",
      );
    },
  );
});
