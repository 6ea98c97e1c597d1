// Line and cell magics in a real Python kernel: files, environment, timing, namespace, capture, help, history.

import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSupportedInterpreters } from "../helpers/interpreters.js";
import { findMissingModules } from "../helpers/libraries.js";
import { startKernel, TEST_PYTHON } from "../helpers/python.js";
import { describeOutputs, runOk } from "./magics-helpers.js";

// An interpreter of the machine image without IPython (pyenv's CPythons have none), for the builtins check.
const WITHOUT_IPYTHON = [...findSupportedInterpreters().values()].find(
  (python) => findMissingModules(python, ["IPython"]).length > 0,
);

function scratchDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "evalkit-magics-")));
}

describe("line magics in a real Python kernel", () => {
  it("%cd expands ~, persists across cells, emits a status event and shows no result", async () => {
    const kernel = await startKernel();
    const cd = await runOk(kernel, "%cd ~");
    expect(cd.results).toEqual([]);
    expect(cd.statuses).toEqual([{ op: "cd", path: homedir() }]);
    expect((await runOk(kernel, "%pwd")).result).toBe(`'${homedir()}'`);
    const dir = scratchDir();
    await runOk(kernel, `%cd ${dir}`);
    expect((await runOk(kernel, "here = %pwd\nhere")).result).toBe(`'${dir}'`);
    await runOk(kernel, "%cd -");
    expect((await runOk(kernel, "import os; os.getcwd()")).result).toBe(`'${homedir()}'`);
  });

  it.skipIf(findMissingModules(TEST_PYTHON, ["IPython"]).length > 0)(
    "puts get_ipython in builtins, as IPython does, so libraries such as sympy find the shell",
    async () => {
      const kernel = await startKernel();
      const run = await runOk(
        kernel,
        "import builtins\nbuiltins.get_ipython() is get_ipython(), builtins.get_ipython.__name__",
      );
      expect(run.result).toBe("(True, 'get_ipython')");
    },
  );

  it.skipIf(WITHOUT_IPYTHON === undefined)(
    `answers None from the builtins' get_ipython where IPython is not installed${WITHOUT_IPYTHON ? "" : " [skipped: every CPython found has IPython]"}`,
    async () => {
      const kernel = await startKernel({ python: WITHOUT_IPYTHON as string });
      const run = await runOk(
        kernel,
        "import builtins\nbuiltins.get_ipython() is None, get_ipython() is not None",
      );
      expect(run.result).toBe("(True, True)");
    },
  );

  it("get_ipython() runs magics and shell commands like the calls nbconvert writes, with {var} expansion", async () => {
    const kernel = await startKernel();
    const run = await runOk(
      kernel,
      [
        "ip = get_ipython()",
        "ip.run_line_magic('env', 'EVALKIT_SHIM_TEST=1')",
        "name = 'world'",
        "ip.system('echo hello {name}')",
        "lines = ip.getoutput('echo a; echo b')",
        "ip.run_cell_magic('bash', '', 'echo from bash')",
        "import os\n(list(lines), os.environ['EVALKIT_SHIM_TEST'], ip.user_ns['name'])",
      ].join("\n"),
    );
    expect(run.stdout).toContain("hello world\nfrom bash\n");
    expect(run.result).toBe("(['a', 'b'], '1', 'world')");
    await runOk(kernel, "%reset -f");
    expect((await runOk(kernel, "get_ipython().getoutput('echo still here')[0]")).result).toBe(
      "'still here'",
    );
  });

  it("%ls runs IPython's `ls -F` alias and prints the listing", async () => {
    const kernel = await startKernel();
    const dir = scratchDir();
    for (const name of ["b.txt", "a.txt", "c.txt"]) writeFileSync(join(dir, name), "");
    const run = await runOk(kernel, `%ls ${dir}`);
    expect(run.stdout).toBe("a.txt\nb.txt\nc.txt\n");
    expect(run.results).toEqual([]);
  });

  it("%env lists, reads and sets variables and %set_env sets one", async () => {
    const kernel = await startKernel();
    const set = await runOk(kernel, "%env EVK_A=one");
    expect(set.stdout).toBe("env: EVK_A=one\n");
    expect(set.results).toEqual([]);
    await runOk(kernel, "%set_env EVK_B two words");
    expect((await runOk(kernel, "%env EVK_A")).result).toBe("'one'");
    expect((await runOk(kernel, "all_env = %env\nall_env['EVK_B']")).result).toBe("'two words'");
    expect((await runOk(kernel, "!echo $EVK_A")).stdout).toBe("one\n");
  });

  it("%time returns the expression's value and %timeit honours -n and -r", async () => {
    const kernel = await startKernel();
    const timed = await runOk(kernel, "%time sum(range(10))");
    expect(timed.result).toBe("45");
    expect(timed.stdout).toMatch(/^CPU times: user .+\nWall time: .+\n$/);
    expect(timed.statuses[0]?.op).toBe("time");
    const loops = await runOk(kernel, "%timeit -n 3 -r 2 x = 1");
    expect(loops.stdout).toMatch(/per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)/);
    expect(loops.results).toEqual([]);
    const cell = await runOk(kernel, "%%timeit -n 2 -r 1 base = 10\ntotal = base * 2");
    expect(cell.stdout).toMatch(/of 1 run, 2 loops each/);
    expect(
      (await runOk(kernel, "r = %timeit -o -q -n 1 -r 3 pass\n(r.loops, r.repeat, len(r.all_runs))")).result,
    ).toBe("(1, 3, 3)");
  });

  it("%who and %whos list only the user's names, never evalkit's", async () => {
    const kernel = await startKernel();
    expect((await runOk(kernel, "%who")).stdout).toBe("Interactive namespace is empty.\n");
    await runOk(kernel, "import json\nalpha = 1\n_private = 2\ndef beta(): pass");
    const who = await runOk(kernel, "%who");
    // IPython's layout byte for byte: every name is followed by a tab and a space.
    expect(who.stdout).toBe("alpha\t beta\t json\t \n");
    expect(who.results).toEqual([]);
    const whos = await runOk(kernel, "%whos");
    expect(whos.stdout.split("\n")[0]).toMatch(/^Variable\s+Type\s+Data\/Info$/);
    expect(whos.stdout).toMatch(/alpha\s+int\s+1/);
  });

  it("%reset -f clears the user's names and keeps display, magics and history working", async () => {
    const kernel = await startKernel();
    await runOk(kernel, "gone = 1\nalso_gone = [1, 2]");
    await runOk(kernel, "%reset -f");
    const after = describeOutputs(await kernel.execute("gone"));
    expect(after.outcome.error?.ename).toBe("NameError");
    expect((await runOk(kernel, "%who")).stdout).toBe("Interactive namespace is empty.\n");
    const shown = await runOk(kernel, "display('still here')");
    expect(shown.displays[0]?.data["text/plain"]).toBe("'still here'");
    expect((await runOk(kernel, "x = !echo ok\nx")).result).toBe("['ok']");
  });

  it("%load runs a file's code here and %run merges a script's globals back", async () => {
    const kernel = await startKernel();
    const dir = scratchDir();
    writeFileSync(join(dir, "lib.py"), "loaded = 6\n!echo from-load\nloaded * 7\n");
    writeFileSync(
      join(dir, "script.py"),
      "import sys\nargs = sys.argv[1:]\nis_main = __name__ == '__main__'\n",
    );
    const load = await runOk(kernel, `%load ${join(dir, "lib.py")}`);
    expect(load.stdout).toBe("from-load\n");
    expect(load.result).toBe("42");
    await runOk(kernel, `%run ${join(dir, "script.py")} one two`);
    expect((await runOk(kernel, "(args, is_main, loaded)")).result).toBe("(['one', 'two'], True, 6)");
  });

  it("an unknown magic fails the cell with a UsageError that names it", async () => {
    const kernel = await startKernel();
    const run = describeOutputs(await kernel.execute("%frobnicate now"));
    expect(run.outcome.status).toBe("error");
    expect(run.outcome.error?.ename).toBe("UsageError");
    expect(run.outcome.error?.evalue).toContain("%frobnicate");
    expect(run.outcome.error?.traceback.join("\n")).toContain(
      "UsageError: Line magic function `%frobnicate`",
    );
  });

  it("accepts what people paste from notebooks and lists the supported magics", async () => {
    const kernel = await startKernel();
    for (const line of [
      "%matplotlib inline",
      "%config InlineBackend.figure_format = 'retina'",
      "%load_ext autoreload",
    ]) {
      const run = await runOk(kernel, line);
      expect(run.results).toEqual([]);
    }
    expect((await runOk(kernel, "%xmode Plain")).stdout).toBe("Exception reporting mode: Plain\n");
    const listing = (await runOk(kernel, "%lsmagic")).stdout;
    for (const name of ["%pip", "%cd", "%timeit", "%%capture", "%%writefile", "%%bash"])
      expect(listing).toContain(name);
  });

  it("obj? shows signature and docstring, obj?? and %pinfo2 add the source", async () => {
    const kernel = await startKernel();
    await runOk(kernel, 'def area(w, h=2):\n    """Area of a box."""\n    return w * h');
    const one = await runOk(kernel, "area?");
    expect(one.pager).toContain("Signature: area(w, h=2)");
    expect(one.pager).toContain("Area of a box.");
    expect(one.pager).not.toContain("return w * h");
    expect((await runOk(kernel, "area??")).pager).toContain("return w * h");
    expect((await runOk(kernel, "%pinfo2 area")).pager).toContain("return w * h");
    expect((await runOk(kernel, "%pinfo area")).pager).toContain("Area of a box.");
    // pager text, as in IPython: a display marked for the reader, never stdout
    expect(one.stdout).toBe("");
  });

  it("%prun profiles a statement and shows pstats' report as pager text, without evalkit's frames", async () => {
    const kernel = await startKernel();
    await runOk(kernel, "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)");
    const run = await runOk(kernel, "%prun -s cumulative fib(12)");
    expect(run.stdout).toBe(" "); // what IPython prints after its report, byte for byte
    expect(run.pager).toMatch(
      /^ +\d+ function calls \(\d+ primitive calls\) in [\d.]+ seconds\n\n {3}Ordered by: cumulative time/,
    );
    expect(run.pager).toMatch(/465\/1 .*<cell 1>:1\(fib\)/);
    expect(run.pager).not.toContain("evalkit_kernel");
    const cell = await runOk(kernel, "%%prun -l 2\nfib(5)");
    expect(cell.pager).toContain("due to restriction <2>");
    expect((await runOk(kernel, "%psource fib")).pager).toContain("return n if n < 2");
  });

  it("keeps IPython's history names In, Out, _N, _iN, _, __ and ___", async () => {
    const kernel = await startKernel();
    await runOk(kernel, "10");
    await runOk(kernel, "20");
    await runOk(kernel, "30");
    const run = await runOk(kernel, "(_, __, ___, _1, Out[2], _i3, In[1])");
    expect(run.result).toBe("(30, 20, 10, 10, 20, '30', '10')");
  });

  it("keeps the last thousand results as IPython's output cache does, warning once when it first culls", async () => {
    const kernel = await startKernel();
    const stderrOf = (run: Awaited<ReturnType<typeof runOk>>) =>
      run.outcome.outputs
        .flatMap((o) => (o.type === "stream" && o.name === "stderr" ? [o.text] : []))
        .join("");
    for (let n = 1; n <= 1000; n++) expect(stderrOf(await runOk(kernel, `${n} * 2`))).toBe("");
    // Out is full: the 1001st result first drops the oldest fifth, as IPython's DisplayHook.cull_cache does.
    const culled = await runOk(kernel, "1001 * 2");
    expect(stderrOf(culled)).toContain(
      "UserWarning: Output cache limit (currently 1000 entries) hit.\nFlushing oldest 200 entries.",
    );
    // Read before this cell's own result is stored: 800 kept plus the 1001st.
    const kept = await runOk(kernel, "(len(Out), min(Out), '_200' in dir(), _201, _i1)");
    expect(kept.result).toBe("(801, 201, False, 402, '1 * 2')");
    for (let n = 1003; n <= 1200; n++) await runOk(kernel, `${n}`);
    // Out is full again at the 1201st result: this cull is silent, the warning shows once per session as in IPython.
    expect(stderrOf(await runOk(kernel, "1201"))).toBe("");
    expect((await runOk(kernel, "(len(Out), min(Out))")).result).toBe("(801, 401)");
  });
});

describe("cell magics in a real Python kernel", () => {
  it("%%capture stores stdout, stderr and rich outputs, and .show() replays them", async () => {
    const kernel = await startKernel();
    const captured = await runOk(
      kernel,
      "%%capture cap\nprint('quiet')\nimport sys; print('err', file=sys.stderr)\n!echo shell\ndisplay('shown')\n41 + 1",
    );
    expect(captured.outcome.outputs).toEqual([]);
    const fields = await runOk(
      kernel,
      "(cap.stdout, cap.stderr, [o.data['text/plain'] for o in cap.outputs])",
    );
    expect(fields.result).toBe("('quiet\\nshell\\n', 'err\\n', [\"'shown'\", '42'])");
    const shown = await runOk(kernel, "cap.show()");
    expect(shown.stdout).toBe("quiet\nshell\n");
    expect(shown.stderr).toBe("err\n");
    expect(shown.displays.map((d) => d.data["text/plain"])).toEqual(["'shown'", "42"]);
  });

  it("%%writefile writes, overwrites and appends (-a) a file", async () => {
    const kernel = await startKernel();
    const path = join(scratchDir(), "notes.txt");
    expect((await runOk(kernel, `%%writefile ${path}\nfirst`)).stdout).toBe(`Writing ${path}\n`);
    expect((await runOk(kernel, `%%writefile -a ${path}\nsecond`)).stdout).toBe(`Appending to ${path}\n`);
    expect(readFileSync(path, "utf8")).toBe("first\nsecond\n");
    expect((await runOk(kernel, `%%writefile ${path}\nthird\n`)).stdout).toBe(`Overwriting ${path}\n`);
    expect(readFileSync(path, "utf8")).toBe("third\n");
  });

  it("%%time runs the body once and shows its trailing expression", async () => {
    const kernel = await startKernel();
    const run = await runOk(kernel, "%%time\nvalue = 2\nvalue * 21");
    expect(run.result).toBe("42");
    expect(run.stdout).toContain("Wall time:");
  });

  it("a cell magic below the first line fails with a clear message", async () => {
    const kernel = await startKernel();
    const run = describeOutputs(await kernel.execute("x = 1\n%%bash\necho hi"));
    expect(run.outcome.error?.ename).toBe("UsageError");
    expect(run.outcome.error?.evalue).toContain("must be the first line");
  });
});
