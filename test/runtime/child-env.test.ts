// The kernel's environment for a resolved interpreter: filtered parent, venv activation, embedder extras; checked in a real child.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyEnvAdditions, buildKernelEnv, computeEnvAdditions } from "../../src/runtime/child-env.js";
import { resolvePython } from "../../src/runtime/resolve-python.js";
import {
  makeEnv,
  makePathDir,
  makeTempDir,
  makeVenv,
  REAL_PYTHON,
  removeTempDirs,
} from "./runtime-helpers.js";

afterAll(removeTempDirs);

describe("buildKernelEnv", () => {
  it("activates the chosen venv in a real child: PATH, VIRTUAL_ENV, sys.prefix, and no secrets", async () => {
    const cwd = makeTempDir("cwd");
    const venv = makeVenv(path.join(cwd, ".venv"));
    const parent = makeEnv([makePathDir(REAL_PYTHON), "/usr/bin", "/bin"], {
      OPENAI_API_KEY: "sk-must-not-leak",
      EVALKIT_SECRET_TOKEN: "must-not-leak-either",
      PYTHONHOME: "/wrong/home",
    });
    const resolved = await resolvePython({ cwd, env: parent });
    const env = buildKernelEnv(resolved, parent, { EMBEDDER_FLAG: "on" });
    const code =
      "import os, sys, shutil, json; print(json.dumps([sys.prefix, os.environ.get('VIRTUAL_ENV'), " +
      "shutil.which('python'), os.environ.get('EMBEDDER_FLAG'), sorted(os.environ)]))";
    const out = execFileSync(resolved.executable, ["-c", code], { env, cwd, encoding: "utf8" });
    const [prefix, virtualEnv, which, flag, names] = JSON.parse(out) as [
      string,
      string,
      string,
      string,
      string[],
    ];
    expect(prefix).toBe(venv);
    expect(virtualEnv).toBe(venv);
    expect(which).toBe(path.join(venv, "bin", "python"));
    expect(flag).toBe("on");
    expect(names).not.toContain("OPENAI_API_KEY");
    expect(names).not.toContain("EVALKIT_SECRET_TOKEN");
    expect(names).not.toContain("PYTHONHOME");
    expect(names).toContain("EVALKIT_HOME");
  });

  it("drops an inherited VIRTUAL_ENV when the chosen interpreter is not in it", async () => {
    const otherVenv = makeVenv(path.join(makeTempDir(), "other"));
    const parent = makeEnv(["/usr/bin", "/bin"], { VIRTUAL_ENV: otherVenv });
    const resolved = await resolvePython({ python: REAL_PYTHON, cwd: makeTempDir("cwd"), env: parent });
    expect(buildKernelEnv(resolved, parent).VIRTUAL_ENV).toBeUndefined();
  });

  it("lets the embedder's extra variables win over venv additions", () => {
    const additions = { pathPrepend: ["/venv/bin"], set: { VIRTUAL_ENV: "/venv" }, unset: [] };
    const env = buildKernelEnv({ envAdditions: additions }, { PATH: "/usr/bin" }, { VIRTUAL_ENV: "/mine" });
    expect(env.VIRTUAL_ENV).toBe("/mine");
    expect(env.PATH).toBe("/venv/bin:/usr/bin");
  });
});

describe("env additions", () => {
  it("puts a venv's Scripts folder first on a Windows Path without duplicating it", () => {
    const additions = computeEnvAdditions(
      { executable: "C:\\p\\Scripts\\python.exe", venv: "C:\\p" },
      "venv",
      "win32",
    );
    expect(additions.set).toEqual({ VIRTUAL_ENV: "C:\\p" });
    const env = applyEnvAdditions({ Path: "C:\\p\\Scripts;C:\\Windows" }, additions, "win32");
    expect(env).toEqual({ Path: "C:\\p\\Scripts;C:\\Windows", VIRTUAL_ENV: "C:\\p" });
  });

  it("puts conda's library folders on PATH on Windows, as `conda activate` does", () => {
    const additions = computeEnvAdditions(
      { executable: "C:\\c\\python.exe", venv: "C:\\c" },
      "conda",
      "win32",
    );
    expect(additions.pathPrepend).toEqual([
      "C:\\c",
      "C:\\c\\Library\\mingw-w64\\bin",
      "C:\\c\\Library\\usr\\bin",
      "C:\\c\\Library\\bin",
      "C:\\c\\Scripts",
    ]);
    expect(additions.set).toEqual({ CONDA_PREFIX: "C:\\c" });
  });
});
