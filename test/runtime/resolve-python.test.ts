// Interpreter resolution against real interpreters and real venvs in temp dirs.
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { clearPreflightCache } from "../../src/runtime/preflight-cache.js";
import { describeCandidates, resolvePython } from "../../src/runtime/resolve-python.js";
import {
  FIXTURES,
  makeEnv,
  makePathDir,
  makeTempDir,
  makeVenv,
  OLD_PYTHONS,
  REAL_PYTHON,
  removeTempDirs,
} from "./runtime-helpers.js";

const SYSTEM_PATH = ["/usr/bin", "/bin"];

afterAll(removeTempDirs);
beforeEach(() => clearPreflightCache());

async function expectRejection(
  promise: Promise<unknown>,
  code: string,
): Promise<Error & { code: string; details: Record<string, unknown> }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isEvalkitError(err), `expected an EvalkitError ${code}, got ${String(err)}`).toBe(true);
  expect((err as { code: string }).code).toBe(code);
  return err as Error & { code: string; details: Record<string, unknown> };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A killed orphan may linger as a zombie until init reaps it; it runs nothing.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

describe("the search order", () => {
  it("chooses the venv named by VIRTUAL_ENV and reports it for PATH and VIRTUAL_ENV", async () => {
    const venv = makeVenv(path.join(makeTempDir("venv"), "env"));
    const cwd = makeTempDir("cwd");
    makeVenv(path.join(cwd, ".venv"));
    const env = makeEnv([makePathDir(REAL_PYTHON)], {
      VIRTUAL_ENV: venv,
      CONDA_PREFIX: makeVenv(path.join(makeTempDir(), "c")),
    });
    const resolved = await resolvePython({ cwd, env });
    expect(resolved.source).toBe("VIRTUAL_ENV");
    expect(resolved.executable).toBe(path.join(venv, "bin", "python"));
    expect(resolved.venv).toBe(venv);
    expect(resolved.versionTuple[0]).toBe(3);
    expect(resolved.reason).toContain("VIRTUAL_ENV");
    expect(resolved.envAdditions.pathPrepend).toEqual([path.join(venv, "bin")]);
    expect(resolved.envAdditions.set).toEqual({ VIRTUAL_ENV: venv });
  });

  it("chooses CONDA_PREFIX when no VIRTUAL_ENV is set, ahead of a venv in the working directory", async () => {
    const conda = makeVenv(path.join(makeTempDir("conda"), "envs", "ds"));
    const cwd = makeTempDir("cwd");
    makeVenv(path.join(cwd, ".venv"));
    const resolved = await resolvePython({
      cwd,
      env: makeEnv([makePathDir(REAL_PYTHON)], { CONDA_PREFIX: conda }),
    });
    expect(resolved.source).toBe("CONDA_PREFIX");
    expect(resolved.executable).toBe(path.join(conda, "bin", "python"));
    expect(resolved.envAdditions.set).toEqual({ CONDA_PREFIX: conda });
    expect(resolved.envAdditions.pathPrepend).toEqual([path.join(conda, "bin")]);
  });

  it("prefers <cwd>/.venv over <cwd>/venv, and uses <cwd>/venv when it is the only one", async () => {
    const cwd = makeTempDir("cwd");
    makeVenv(path.join(cwd, "venv"));
    const env = makeEnv([makePathDir(REAL_PYTHON)]);
    const onlyVenv = await resolvePython({ cwd, env });
    expect(onlyVenv.source).toBe("cwd-venv");
    expect(onlyVenv.venv).toBe(path.join(cwd, "venv"));
    makeVenv(path.join(cwd, ".venv"));
    const both = await resolvePython({ cwd, env });
    expect(both.venv).toBe(path.join(cwd, ".venv"));
    expect(both.executable).toBe(path.join(cwd, ".venv", "bin", "python"));
  });

  it("uses the managed venv in EVALKIT_HOME before python on PATH", async () => {
    const env = makeEnv([makePathDir(REAL_PYTHON)]);
    const managed = makeVenv(path.join(env.EVALKIT_HOME as string, "python-env"));
    const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env });
    expect(resolved.source).toBe("managed-venv");
    expect(resolved.venv).toBe(managed);
  });

  it("falls back to python3 on PATH when no venv exists", async () => {
    const pathDir = makePathDir(REAL_PYTHON);
    const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([pathDir]) });
    expect(resolved.source).toBe("PATH");
    expect(resolved.executable).toBe(path.join(pathDir, "python3"));
    expect(resolved.venv).toBeUndefined();
    expect(resolved.envAdditions.unset).toContain("VIRTUAL_ENV");
  });

  it("falls back to `python` on PATH when there is no python3", async () => {
    const pathDir = makePathDir(REAL_PYTHON, ["python"]);
    const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([pathDir]) });
    expect(resolved.executable).toBe(path.join(pathDir, "python"));
  });

  it("skips a VIRTUAL_ENV that points nowhere, records why, and keeps searching", async () => {
    const missing = path.join(makeTempDir(), "gone");
    const resolved = await resolvePython({
      cwd: makeTempDir("cwd"),
      env: makeEnv([makePathDir(REAL_PYTHON)], { VIRTUAL_ENV: missing }),
    });
    expect(resolved.source).toBe("PATH");
    expect(resolved.rejected).toEqual([
      expect.objectContaining({
        source: "VIRTUAL_ENV",
        kind: "missing",
        reason: expect.stringContaining("does not exist"),
      }),
    ]);
  });
});

describe("an explicit interpreter", () => {
  it("skips the search when given as an option, even with VIRTUAL_ENV set", async () => {
    const venv = makeVenv(path.join(makeTempDir(), "env"));
    const resolved = await resolvePython({
      python: REAL_PYTHON,
      cwd: makeTempDir("cwd"),
      env: makeEnv(SYSTEM_PATH, { VIRTUAL_ENV: venv }),
    });
    expect(resolved.source).toBe("explicit");
    expect(resolved.executable).toBe(REAL_PYTHON);
    expect(resolved.reason).toContain("named explicitly");
  });

  it("comes from EVALKIT_PYTHON when no option is given, and the option wins over it", async () => {
    const other = makePathDir(REAL_PYTHON, ["python-other"]);
    const env = makeEnv(SYSTEM_PATH, { EVALKIT_PYTHON: path.join(other, "python-other") });
    const fromEnv = await resolvePython({ cwd: makeTempDir("cwd"), env });
    expect(fromEnv.source).toBe("explicit");
    expect(fromEnv.executable).toBe(path.join(other, "python-other"));
    expect(fromEnv.reason).toContain("EVALKIT_PYTHON");
    const fromOption = await resolvePython({ python: REAL_PYTHON, cwd: makeTempDir("cwd"), env });
    expect(fromOption.executable).toBe(REAL_PYTHON);
  });

  it("resolves a relative path against cwd and a bare name on PATH", async () => {
    const cwd = makeTempDir("cwd");
    const venv = makeVenv(path.join(cwd, "tools", "env"));
    const relative = await resolvePython({ python: "tools/env/bin/python", cwd, env: makeEnv(SYSTEM_PATH) });
    expect(relative.executable).toBe(path.join(venv, "bin", "python"));
    expect(relative.venv).toBe(venv);
    const pathDir = makePathDir(REAL_PYTHON, ["mypython"]);
    const bare = await resolvePython({ python: "mypython", cwd, env: makeEnv([pathDir]) });
    expect(bare.executable).toBe(path.join(pathDir, "mypython"));
  });

  it("fails with PYTHON_NOT_FOUND and does not fall back when it does not exist", async () => {
    const err = await expectRejection(
      resolvePython({
        python: "/nonexistent/python3",
        cwd: makeTempDir("cwd"),
        env: makeEnv([makePathDir(REAL_PYTHON)]),
      }),
      "PYTHON_NOT_FOUND",
    );
    expect(err.message).toContain("/nonexistent/python3");
  });
});

describe("the preflight rejects interpreters that do not work", () => {
  it.skipIf(OLD_PYTHONS.length === 0)(
    "rejects a real Python older than 3.8 with PYTHON_TOO_OLD",
    async () => {
      for (const old of OLD_PYTHONS) {
        const err = await expectRejection(
          resolvePython({ python: old, cwd: makeTempDir("cwd"), env: makeEnv(SYSTEM_PATH) }),
          "PYTHON_TOO_OLD",
        );
        expect(err.message).toMatch(/Python (3\.[67]|2\.7)\.\d+, too old: evalkit needs 3\.8 or newer/);
      }
    },
  );

  it("rejects a too-old interpreter found in the search and moves on to the next", async () => {
    const old = OLD_PYTHONS[0] ?? path.join(FIXTURES, "runtime-old-python.sh");
    const cwd = makeTempDir("cwd");
    mkdirSync(path.join(cwd, ".venv", "bin"), { recursive: true });
    symlinkSync(old, path.join(cwd, ".venv", "bin", "python"));
    const resolved = await resolvePython({ cwd, env: makeEnv([makePathDir(REAL_PYTHON)]) });
    expect(resolved.source).toBe("PATH");
    expect(resolved.rejected).toEqual([
      expect.objectContaining({
        source: "cwd-venv",
        kind: "too-old",
        reason: expect.stringContaining("3.7"),
      }),
    ]);
  });

  it("throws PYTHON_TOO_OLD when every interpreter found is too old", async () => {
    const old = OLD_PYTHONS[0] ?? path.join(FIXTURES, "runtime-old-python.sh");
    await expectRejection(
      resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([makePathDir(old)]) }),
      "PYTHON_TOO_OLD",
    );
  });

  it("rejects a program that prints garbage, naming what it printed", async () => {
    const garbage = path.join(FIXTURES, "runtime-garbage-python.sh");
    const err = await expectRejection(
      resolvePython({ python: garbage, cwd: makeTempDir("cwd"), env: makeEnv(SYSTEM_PATH) }),
      "PYTHON_NOT_FOUND",
    );
    expect(err.message).toContain("is not a Python interpreter");
    expect(err.message).toContain("NotPython 9000");
  });

  it("rejects an interpreter that exits with an error, quoting its stderr", async () => {
    const failing = path.join(FIXTURES, "runtime-failing-python.sh");
    const cwd = makeTempDir("cwd");
    mkdirSync(path.join(cwd, "venv", "bin"), { recursive: true });
    symlinkSync(failing, path.join(cwd, "venv", "bin", "python"));
    const resolved = await resolvePython({ cwd, env: makeEnv([makePathDir(REAL_PYTHON)]) });
    expect(resolved.source).toBe("PATH");
    expect(resolved.rejected[0]?.kind).toBe("failed");
    expect(resolved.rejected[0]?.reason).toMatch(/exited with code 3.*Fatal Python error/);
  });

  it("rejects a hanging interpreter at the timeout and kills it and its children", async () => {
    const pidFile = path.join(makeTempDir(), "pids");
    const started = performance.now();
    const err = await expectRejection(
      resolvePython({
        python: path.join(FIXTURES, "runtime-hanging-python.sh"),
        cwd: makeTempDir("cwd"),
        env: makeEnv(SYSTEM_PATH, { EVALKIT_TEST_PIDFILE: pidFile }),
        preflightTimeoutMs: 1500,
      }),
      "PYTHON_NOT_FOUND",
    );
    expect(performance.now() - started).toBeLessThan(6000);
    expect(err.message).toContain("did not answer within 1500 ms");
    const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await waitForExit(pid, 3000), `process ${pid} still alive`).toBe(true);
  });

  it("lists every step it tried when nothing works", async () => {
    const empty = makeTempDir("empty");
    const err = await expectRejection(
      resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([empty]) }),
      "PYTHON_NOT_FOUND",
    );
    for (const step of ["VIRTUAL_ENV", "CONDA_PREFIX", ".venv", "/venv", "python-env", "PATH"]) {
      expect(err.message).toContain(step);
    }
    expect(err.message).toContain("evalkit setup python");
  });
});

describe("skipping the preflight", () => {
  it("accepts the first existing candidate without running it when skipCheck is set", async () => {
    const garbage = path.join(FIXTURES, "runtime-garbage-python.sh");
    const resolved = await resolvePython({
      python: garbage,
      cwd: makeTempDir("cwd"),
      env: makeEnv(SYSTEM_PATH),
      skipCheck: true,
    });
    expect(resolved.executable).toBe(garbage);
    expect(resolved.checked).toBe(false);
    expect(resolved.version).toBe("unknown");
  });

  it("honours EVALKIT_PYTHON_SKIP_CHECK=1 and reads a venv's version from pyvenv.cfg", async () => {
    const cwd = makeTempDir("cwd");
    const venv = makeVenv(path.join(cwd, ".venv"));
    const cfg = readFileSync(path.join(venv, "pyvenv.cfg"), "utf8");
    const version = /version(?:_info)?\s*=\s*(\d+\.\d+\.\d+)/.exec(cfg)?.[1];
    const resolved = await resolvePython({ cwd, env: makeEnv([], { EVALKIT_PYTHON_SKIP_CHECK: "1" }) });
    expect(resolved.checked).toBe(false);
    expect(resolved.version).toBe(version);
  });
});

describe("describeCandidates", () => {
  it("reports the chosen interpreter, rejected ones with reasons, and usable ones after the choice", async () => {
    const cwd = makeTempDir("cwd");
    mkdirSync(path.join(cwd, ".venv", "bin"), { recursive: true });
    symlinkSync(path.join(FIXTURES, "runtime-garbage-python.sh"), path.join(cwd, ".venv", "bin", "python"));
    makeVenv(path.join(cwd, "venv"));
    const report = await describeCandidates({ cwd, env: makeEnv([makePathDir(REAL_PYTHON)]) });
    const byStatus = (status: string) => report.candidates.filter((line) => line.status === status);
    expect(report.chosen?.venv).toBe(path.join(cwd, "venv"));
    expect(byStatus("rejected")).toEqual([
      expect.objectContaining({ source: "cwd-venv", reason: expect.stringContaining("not a Python") }),
    ]);
    expect(byStatus("usable")).toEqual([expect.objectContaining({ source: "PATH" })]);
    expect(byStatus("absent").map((line) => line.source)).toEqual([
      "VIRTUAL_ENV",
      "CONDA_PREFIX",
      "managed-venv",
    ]);
    expect(report.error).toBeUndefined();
  });

  it("carries the error instead of throwing when no interpreter works", async () => {
    const report = await describeCandidates({
      cwd: makeTempDir("cwd"),
      env: makeEnv([makeTempDir("empty")]),
    });
    expect(report.chosen).toBeUndefined();
    expect(report.error?.code).toBe("PYTHON_NOT_FOUND");
  });
});

describe("input validation", () => {
  it("rejects a working directory that does not exist with CWD_INVALID", async () => {
    await expectRejection(resolvePython({ cwd: "/nonexistent/dir" }), "CWD_INVALID");
  });

  it("names the offending field of invalid options", async () => {
    const err = await expectRejection(resolvePython({ preflightTimeoutMs: -5 }), "INVALID_INPUT");
    expect(err.message).toContain("preflightTimeoutMs");
  });

  it("lists one interpreter reached through two spellings of the same PATH directory once", async () => {
    const pathDir = makePathDir(REAL_PYTHON);
    const linkDir = path.join(makeTempDir(), "linked-bin");
    symlinkSync(pathDir, linkDir);
    const report = await describeCandidates({ cwd: makeTempDir("cwd"), env: makeEnv([linkDir, pathDir]) });
    const onPath = report.candidates.filter((line) => line.source === "PATH");
    expect(onPath.map((line) => line.candidate)).toEqual([path.join(linkDir, "python3")]);
  });
});
