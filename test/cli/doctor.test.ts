// `evalkit doctor`: the chosen interpreter, why, what was rejected, which secrets are withheld, and the exit code.
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDoctorReport, runDoctor } from "../../src/cli/doctor.js";
import {
  FIXTURES,
  makeEnv,
  makePathDir,
  makeTempDir,
  makeVenv,
  REAL_PYTHON,
  removeTempDirs,
} from "../runtime/runtime-helpers.js";

afterAll(removeTempDirs);

function collectIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

describe("evalkit doctor", () => {
  it("prints the chosen interpreter, its version, why, each rejected candidate with its reason, and exits 0", async () => {
    const cwd = makeTempDir("cwd");
    mkdirSync(path.join(cwd, ".venv", "bin"), { recursive: true });
    symlinkSync(path.join(FIXTURES, "runtime-garbage-python.sh"), path.join(cwd, ".venv", "bin", "python"));
    const venv = makeVenv(path.join(cwd, "venv"));
    const env = makeEnv([makePathDir(REAL_PYTHON)], {
      OPENAI_API_KEY: "sk-do-not-print-me",
      EVALKIT_SECRET_TOKEN: "also-hidden",
    });
    const cap = collectIo();
    const code = await runDoctor({ cwd }, cap.io, env);
    const text = cap.stdout();
    expect(code).toBe(0);
    expect(text).toContain(`executable  ${path.join(venv, "bin", "python")}`);
    expect(text).toMatch(/version {5}3\.\d+\.\d+ \(cpython\)/);
    expect(text).toContain("why         a virtual environment in the working directory");
    expect(text).toMatch(
      /rejected {2}cwd-venv .*is not a Python interpreter: it printed "Welcome to NotPython 9000!/,
    );
    expect(text).toMatch(/usable {4}PATH/);
    expect(text).toContain("secrets withheld: EVALKIT_SECRET_TOKEN, OPENAI_API_KEY");
    expect(text).not.toContain("sk-do-not-print-me");
    expect(cap.stderr()).toBe("");
  });

  it("exits 1 and says what to do when no interpreter works", async () => {
    const cap = collectIo();
    const code = await runDoctor({ cwd: makeTempDir("cwd") }, cap.io, makeEnv([makeTempDir("empty")]));
    expect(code).toBe(1);
    // No bwrap on that PATH either: the sandbox section says why and what to install.
    expect(cap.stdout()).toMatch(
      /Sandbox .*\n {2}not available: bwrap was not found on PATH: install bubblewrap/,
    );
    expect(cap.stdout()).toContain("No usable Python interpreter");
    expect(cap.stdout()).toContain("evalkit setup python");
    expect(cap.stdout()).toMatch(/absent {4}PATH +neither python3 nor python is on PATH/);
  });

  it("exits 1 for an explicit interpreter that is too old or broken, naming the reason", async () => {
    const cap = collectIo();
    const code = await runDoctor(
      { python: path.join(FIXTURES, "runtime-old-python.sh"), cwd: makeTempDir("cwd") },
      cap.io,
      makeEnv(["/usr/bin", "/bin"]),
    );
    expect(code).toBe(1);
    expect(cap.stdout()).toContain("is Python 3.7.9, too old: evalkit needs 3.8 or newer");
  });

  it("prints one JSON object with --json", async () => {
    const cap = collectIo();
    const code = await runDoctor(
      { json: true, cwd: makeTempDir("cwd") },
      cap.io,
      makeEnv([makePathDir(REAL_PYTHON)]),
    );
    const report = JSON.parse(cap.stdout());
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.chosen.source).toBe("PATH");
    expect(report.chosen.versionTuple[0]).toBe(3);
    expect(report.candidates.length).toBeGreaterThanOrEqual(6);
    expect(report.kernelEnv.passed).toContain("PYTHONUNBUFFERED");
    if (process.platform === "linux") expect(report.jsKernel.subreaperPython).toMatch(/python3$/);
  });

  it("names the JS kernels' subreaper parent, or says what is lost without one", () => {
    const report = { candidates: [] };
    const env = { passed: [], withheldSecrets: [] };
    expect(formatDoctorReport(report, env, undefined, "/usr/bin/python3")).toContain(
      "JavaScript kernels\n  subreaper parent  /usr/bin/python3 (daemons a cell double-forks end with the kernel)\n",
    );
    expect(formatDoctorReport(report, env, undefined, null)).toMatch(
      /subreaper parent {2}none \(Linux with a python3 3\.8\+ needed\): a daemon a cell double-forks and makes non-dumpable can outlive the kernel/,
    );
  });

  it("exits 2 with a message on stderr for a working directory that does not exist", async () => {
    const cap = collectIo();
    expect(await runDoctor({ cwd: "/nonexistent/place" }, cap.io, makeEnv([]))).toBe(2);
    expect(cap.stderr()).toContain("/nonexistent/place");
  });
});
