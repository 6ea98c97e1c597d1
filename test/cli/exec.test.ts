// `evalkit exec`: cells from -c/FILE/--input, --json details, exit codes 0/1/2, one-line interpreter errors.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { ensureBuilt } from "../helpers/build.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools, makeTempDir, TEST_PYTHON } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PY = ["--python", TEST_PYTHON];

describe("evalkit exec (in process)", () => {
  it("prints the documented details object with --json and exits 0 when every cell is ok", async () => {
    const io = captureIo();
    const code = await runExec(["-c", "print(1)", "-c", "1+1", "--json", ...PY], io);
    expect(code).toBe(0);
    const lines = io.out().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const details = JSON.parse(lines[0]!);
    expect(details).toEqual({
      ok: true,
      cells: [
        {
          index: 0,
          language: "py",
          status: "ok",
          executionCount: 1,
          durationMs: expect.any(Number),
          text: "1\n",
          outputs: [{ type: "stream", name: "stdout", text: "1\n" }],
          usage: { cpuMs: expect.any(Number), peakRssBytes: expect.any(Number) },
        },
        {
          index: 1,
          language: "py",
          status: "ok",
          executionCount: 2,
          durationMs: expect.any(Number),
          text: "2\n",
          outputs: [{ type: "result", data: { "text/plain": "2" } }],
          usage: { cpuMs: expect.any(Number), peakRssBytes: expect.any(Number) },
        },
      ],
    });
  });

  it("prints a single cell's output plainly and several cells under headers", async () => {
    const one = captureIo();
    expect(await runExec(["-c", "print('hello')", ...PY], one)).toBe(0);
    expect(one.out()).toBe("hello\n");

    const two = captureIo();
    expect(await runExec(["-c", "x = 2", "-c", "print(x * 21)", ...PY], two)).toBe(0);
    expect(two.out()).toBe("[1/2] (py)\n[2/2] (py)\n42\n");
  });

  it("exits 1 when a cell fails, showing the traceback and the skipped cells", async () => {
    const io = captureIo();
    const code = await runExec(["-c", "1/0", "-c", "print('never')", ...PY], io);
    expect(code).toBe(1);
    expect(io.out()).toContain("ZeroDivisionError: division by zero");
    expect(io.out()).toContain("skipped");
    expect(io.out()).not.toContain("never");
  });

  it("runs FILE cells in command-line order with -c cells, choosing the language by extension", async () => {
    const dir = makeTempDir("exec-files");
    writeFileSync(path.join(dir, "a.py"), "print('from a.py')\n");
    writeFileSync(path.join(dir, "b.js"), "console.log('from b.js')\n");
    const io = captureIo();
    const code = await runExec(
      ["-c", "print('first')", path.join(dir, "a.py"), path.join(dir, "b.js"), "--json", ...PY],
      io,
    );
    expect(code).toBe(0);
    const details = JSON.parse(io.out());
    expect(
      details.cells.map((c: { language: string; text: string; title?: string }) => [
        c.language,
        c.text,
        c.title,
      ]),
    ).toEqual([
      ["py", "first\n", undefined],
      ["py", "from a.py\n", "a.py"],
      ["js", "from b.js\n", "b.js"],
    ]);
  });

  it("uses --lang for -c cells and --cwd as the working directory", async () => {
    const dir = makeTempDir("exec-cwd");
    const io = captureIo();
    expect(await runExec(["--lang", "js", "-c", "process.cwd()", "--cwd", dir, "--json"], io)).toBe(0);
    const details = JSON.parse(io.out());
    expect(details.cells[0].language).toBe("js");
    expect(details.cells[0].text).toContain(path.basename(dir));
  });

  it("takes the tool's exact input JSON from --input - (stdin) and from a file", async () => {
    const input = { cells: [{ code: "v = 5" }, { language: "python", code: "v * 2", title: "double" }] };
    const fromStdin = captureIo(JSON.stringify(input));
    expect(await runExec(["--input", "-", "--json", ...PY], fromStdin)).toBe(0);
    expect(JSON.parse(fromStdin.out()).cells[1]).toMatchObject({ title: "double", text: "10\n" });

    const file = path.join(makeTempDir("exec-input"), "input.json");
    writeFileSync(file, JSON.stringify(input));
    const fromFile = captureIo();
    expect(await runExec(["--input", file, ...PY], fromFile)).toBe(0);
    expect(fromFile.out()).toContain("10");
  });

  it("runs every cell to its end when --input asks for yieldAfter, with a note, and refuses a job handle", async () => {
    const io = captureIo(
      JSON.stringify({ cells: [{ code: "import time\ntime.sleep(0.5)\nprint('end')" }], yieldAfter: 0 }),
    );
    expect(await runExec(["--input", "-", "--json", ...PY], io)).toBe(0);
    const details = JSON.parse(io.out());
    expect(details.job).toBeUndefined();
    expect(details.cells[0]).toMatchObject({ status: "ok", text: "end\n" });
    expect(io.err()).toBe("evalkit exec: note: yieldAfter is ignored (exec runs every cell to its end)\n");

    const job = captureIo(JSON.stringify({ job: "job-123", wait: 5 }));
    expect(await runExec(["--input", "-", ...PY], job)).toBe(2);
    expect(job.err()).toContain("job: a job handle is not accepted here");
  });

  it("exits 2 naming the field when --input is invalid", async () => {
    const io = captureIo(JSON.stringify({ cells: [{ code: "1", language: "rb" }] }));
    expect(await runExec(["--input", "-", ...PY], io)).toBe(2);
    expect(io.err()).toBe(
      'evalkit exec: invalid input: cells[0].language: expected "py" or "js", got "rb"\n',
    );

    const empty = captureIo(JSON.stringify({ cells: [] }));
    expect(await runExec(["--input", "-", ...PY], empty)).toBe(2);
    expect(empty.err()).toContain("cells: expected at least 1 item");

    const notJson = captureIo("{cells:");
    expect(await runExec(["--input", "-", ...PY], notJson)).toBe(2);
    expect(notJson.err()).toContain("--input: not valid JSON");
  });

  it("exits 2 for bad usage: unknown flag, no cells, bad --timeout, --input mixed with -c", async () => {
    for (const argv of [
      ["--bogus"],
      [],
      ["-c", "1", "--timeout", "soon"],
      ["-c", "1", "--input", "-"],
      ["nope.py"],
    ]) {
      const io = captureIo("{}");
      expect(await runExec(argv, io), argv.join(" ")).toBe(2);
      expect(io.err()).toMatch(/^evalkit exec: /);
      expect(io.err()).not.toMatch(/\n\s+at /);
    }
  });

  it("applies --timeout to every cell (clamped, not rejected)", async () => {
    const io = captureIo();
    const started = Date.now();
    const code = await runExec(["-c", "import time; time.sleep(30)", "--timeout=-3", "--json", ...PY], io);
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(JSON.parse(io.out()).cells[0].status).toBe("timeout");
  });

  it("reports a missing interpreter in one line on stderr and exits 1", async () => {
    const io = captureIo();
    const code = await runExec(["-c", "print(1)", "--python", "/no/such/python3"], io);
    expect(code).toBe(1);
    expect(io.out()).toBe("");
    const lines = io.err().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("/no/such/python3");
    expect(lines[0]).toContain("--python");
  });

  it("prints its usage with --help", async () => {
    const io = captureIo();
    expect(await runExec(["--help"], io)).toBe(0);
    expect(io.out()).toContain("--input FILE|-");
  });
});

describe("evalkit exec (the installed command)", () => {
  beforeAll(async () => {
    // `npm test` builds first; a bare `vitest run` on a stale or fresh tree builds the bundle here.
    await ensureBuilt();
  }, 180_000);

  const evalkit = (args: string[], input?: string) =>
    spawnSync(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), ...args], {
      cwd: ROOT,
      encoding: "utf8",
      input,
      env: { ...process.env, EVALKIT_PYTHON: TEST_PYTHON },
      timeout: 60_000,
    });

  it("refuses to run unsandboxed when --sandbox is asked for and bwrap is missing", () => {
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "bin", "evalkit.js"), "exec", "--sandbox", "-c", "1+1"],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, EVALKIT_PYTHON: TEST_PYTHON, PATH: makeTempDir("no-bwrap") },
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("a sandbox was asked for but is not available: bwrap was not found on PATH");
  });

  it("npx evalkit exec -c 'print(1)' -c '1+1' --json prints the details object", () => {
    const run = evalkit(["exec", "-c", "print(1)", "-c", "1+1", "--json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const details = JSON.parse(run.stdout);
    expect(details.ok).toBe(true);
    expect(details.cells.map((c: { text: string }) => c.text)).toEqual(["1\n", "2\n"]);
  });

  it("survives a JS cell that signals the host, reporting the refusal", () => {
    const run = evalkit(["exec", "--lang", "js", "-c", "process.kill(process.ppid, 'SIGTERM')"]);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("would signal the evalkit host");
  });

  it("reports a JS cell that sends SIGTERM to its own pid as its kernel's death, and the host lives", () => {
    const run = evalkit([
      "exec",
      "--lang",
      "js",
      "-c",
      "process.kill(process.pid, 'SIGTERM')",
      "-c",
      "'after'",
    ]);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("kernel died (signal SIGTERM)");
  });

  it("exits 1 for a failing cell and 2 for invalid input, without stack traces", () => {
    const failing = evalkit(["exec", "-c", "raise SystemExit('bye')"]);
    expect(failing.status).toBe(1);
    const invalid = evalkit(["exec", "--input", "-"], '{"cells": [{"code": "1", "timeout": "x"}]}');
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toBe(
      'evalkit exec: invalid input: cells[0].timeout: expected a number, got "x"\n',
    );
  });
});
