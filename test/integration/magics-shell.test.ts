// Shell escapes and shell cell magics in a real kernel: live streaming, capture helpers, interpolation, interrupts.

import { describe, expect, it } from "vitest";
import { findProcesses, waitFor } from "../helpers/processes.js";
import { startKernel } from "../helpers/python.js";
import { describeOutputs, runOk } from "./magics-helpers.js";

describe("shell escapes in a real Python kernel", () => {
  it("streams a command's output while it is still running", async () => {
    const kernel = await startKernel();
    const arrivals: { text: string; at: number }[] = [];
    const outcome = await kernel.execute("!echo first; sleep 1; echo second", {
      onOutput: (o) => {
        if (o.type === "stream") arrivals.push({ text: o.text, at: Date.now() });
      },
    });
    const ended = Date.now();
    expect(outcome.status).toBe("ok");
    const first = arrivals.find((a) => a.text.includes("first"));
    expect(first).toBeDefined();
    expect(ended - (first?.at ?? ended)).toBeGreaterThan(500);
    expect(arrivals.map((a) => a.text).join("")).toBe("first\nsecond\n");
    expect(describeOutputs(outcome).results).toEqual([]);
  });

  it("captures stdout into a list with .n, .s, .l, .grep, .fields and .returncode", async () => {
    const kernel = await startKernel();
    await runOk(kernel, "lines = !printf 'a 1\\nb 2\\nc 3\\n'; echo oops >&2; exit 3");
    const run = await runOk(
      kernel,
      "(type(lines).__name__, lines.n, lines.s, lines.l, lines.grep('b|c'), lines.fields(1), lines.returncode, _exit_code)",
    );
    // Wider than 79 columns, so IPython's pretty printer puts one item per line.
    expect(run.result).toBe(
      "('SList',\n 'a 1\\nb 2\\nc 3',\n 'a 1 b 2 c 3',\n ['a 1', 'b 2', 'c 3'],\n ['b 2', 'c 3'],\n ['1', '2', '3'],\n 3,\n 3)",
    );
  });

  it("interpolates {expr}, $name and $obj.attr, keeps unknown $VARS for the shell and $$ as a literal $", async () => {
    const kernel = await startKernel();
    await runOk(kernel, "n = 20\nclass O: attr = 'dotted'\no = O()");
    const run = await runOk(kernel, "!echo {n + 1} $n $o.attr $$n $HOME");
    // `$$n` reaches bash as `$n`, an unset shell variable, so it expands to nothing.
    expect(run.stdout).toBe(`21 20 dotted ${process.env.HOME ?? ""}\n`);
  });

  it("interpolates a function's local variables inside its body", async () => {
    const kernel = await startKernel();
    const run = await runOk(kernel, "def f(word):\n    out = !echo local:{word}\n    return out.s\nf('yes')");
    expect(run.result).toBe("'local:yes'");
  });

  it("decodes binary output with replacement characters instead of failing", async () => {
    const kernel = await startKernel();
    const run = await runOk(kernel, "!printf 'bin \\377\\376 ok\\n'");
    expect(run.stdout).toBe("bin \ufffd\ufffd ok\n");
  });

  it("kills the command's whole process group when the cell is interrupted", async () => {
    const kernel = await startKernel();
    const marker = `300.${process.pid}${Date.now() % 1000}`; // unique: a leftover of another run must not count
    const pending = kernel.execute(`!sleep ${marker} & sleep ${marker}; echo never`);
    expect(await waitFor(() => findProcesses("sleep", marker).length >= 2, 10_000)).toBe(true);
    kernel.interrupt();
    const outcome = await pending;
    expect(outcome.cancelled).toBe(true);
    // The traceback shows the user's line, not the queue/threading internals the wait was in.
    expect(outcome.error?.traceback.join("\n")).not.toMatch(/queue\.py|threading\.py/);
    expect(outcome.error?.traceback.at(-1)).toBe("KeyboardInterrupt");
    expect(await waitFor(() => findProcesses("sleep", marker).length === 0, 5_000)).toBe(true);
    expect(describeOutputs(outcome).stdout).not.toContain("never");
    expect((await runOk(kernel, "1 + 1")).result).toBe("2");
  });

  it("runs %%bash and %%sh bodies, storing --out and the exit code", async () => {
    const kernel = await startKernel();
    const bash = await runOk(
      kernel,
      '%%bash --no-raise-error\nfor i in 1 2; do echo "line $i"; done\necho warn >&2\nexit 2',
    );
    expect(bash.stdout).toBe("line 1\nline 2\n");
    expect(bash.stderr).toBe("warn\n");
    expect((await runOk(kernel, "_exit_code")).result).toBe("2");
    await runOk(kernel, "%%sh --out listing\necho captured");
    expect((await runOk(kernel, "listing")).result).toBe("'captured\\n'");
    // --err NAME keeps stderr out of the cell's output and in the variable, as IPython's script magics do
    const quiet = await runOk(
      kernel,
      "%%bash --out output --err error\necho hi, stdout\necho hello, stderr >&2",
    );
    expect(quiet.stdout + quiet.stderr).toBe("");
    expect((await runOk(kernel, "error, output")).result).toBe("('hello, stderr\\n', 'hi, stdout\\n')");
  });

  it("fails a %%bash cell whose script exits non-zero, as IPython 8 does, after streaming its output", async () => {
    const kernel = await startKernel();
    const failing = describeOutputs(await kernel.execute("%%bash\necho built\nexit 5"));
    expect(failing.stdout).toBe("built\n");
    expect(failing.outcome.status).toBe("error");
    expect(failing.outcome.error?.ename).toBe("CalledProcessError");
    expect(failing.outcome.error?.evalue).toContain("exit status 5");
    expect((await runOk(kernel, "_exit_code")).result).toBe("5");
  });
});
