// `evalkit setup python`: creates the managed venv that the search then finds; `--check` is the doctor report.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSetupPython } from "../../src/cli/setup-python.js";
import { resolvePython } from "../../src/runtime/resolve-python.js";
import {
  makeEnv,
  makePathDir,
  makeTempDir,
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

describe("evalkit setup python", () => {
  it("creates $EVALKIT_HOME/python-env from the interpreter on PATH, which the search then chooses", async () => {
    const env = makeEnv([makePathDir(REAL_PYTHON)]);
    const cwd = makeTempDir("cwd");
    const cap = collectIo();
    const code = await runSetupPython({ cwd, withoutPip: true }, cap.io, env);
    expect(cap.stderr()).toBe("");
    expect(code).toBe(0);
    const venv = path.join(env.EVALKIT_HOME as string, "python-env");
    expect(existsSync(path.join(venv, "pyvenv.cfg"))).toBe(true);
    expect(cap.stdout()).toContain(`Created the managed venv at ${venv}`);
    const resolved = await resolvePython({ cwd, env });
    expect(resolved.source).toBe("managed-venv");
    expect(resolved.executable).toBe(path.join(venv, "bin", "python"));

    const again = collectIo();
    expect(await runSetupPython({ cwd, withoutPip: true }, again.io, env)).toBe(0);
    expect(again.stdout()).toContain("already exists");
  });

  it("fails with exit 1 and the reason when no interpreter can create the venv", async () => {
    const cap = collectIo();
    const code = await runSetupPython({ cwd: makeTempDir("cwd") }, cap.io, makeEnv([makeTempDir("empty")]));
    expect(code).toBe(1);
    expect(cap.stderr()).toContain("No usable Python interpreter");
  });

  it("with --check prints the doctor report and creates nothing", async () => {
    const env = makeEnv([makePathDir(REAL_PYTHON)]);
    const cap = collectIo();
    expect(await runSetupPython({ check: true, cwd: makeTempDir("cwd") }, cap.io, env)).toBe(0);
    expect(cap.stdout()).toContain("Search, in order");
    expect(existsSync(path.join(env.EVALKIT_HOME as string, "python-env"))).toBe(false);
  });
});
