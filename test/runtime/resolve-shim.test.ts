// Shims resolve to real binaries (pyenv by its version files, others through sys.executable), and the preflight cache.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { clearPreflightCache } from "../../src/runtime/preflight-cache.js";
import { resolvePython } from "../../src/runtime/resolve-python.js";
import { detectShim, resolvePyenvShim } from "../../src/runtime/resolve-shim.js";
import { makeEnv, makePathDir, makeTempDir, REAL_PYTHON, removeTempDirs } from "./runtime-helpers.js";

afterAll(removeTempDirs);
beforeEach(() => clearPreflightCache());

function writeScript(file: string, body: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A pyenv root in a temp dir: a real-looking shim and two "installed" versions linked to the real Python. */
function makeFakePyenv(versions: string[], globalVersion?: string) {
  const root = makeTempDir("pyenv");
  const shim = writeScript(
    path.join(root, "shims", "python3"),
    `export PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "$program" "$@"`,
  );
  for (const version of versions) {
    mkdirSync(path.join(root, "versions", version, "bin"), { recursive: true });
    symlinkSync(REAL_PYTHON, path.join(root, "versions", version, "bin", "python3"));
  }
  if (globalVersion) writeFileSync(path.join(root, "version"), `${globalVersion}\n`);
  return { root, shim };
}

describe("pyenv shims", () => {
  const machineShim = "/root/.pyenv/shims/python3";

  it.skipIf(!existsSync(machineShim))(
    "resolves python3 on a PATH holding pyenv's shims to a real, non-shim binary",
    async () => {
      const env = makeEnv(["/root/.pyenv/shims", "/usr/bin", "/bin"], { PYENV_ROOT: "/root/.pyenv" });
      const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env });
      expect(resolved.candidate).toBe(machineShim);
      expect(resolved.shim?.kind).toBe("pyenv");
      expect(resolved.executable).not.toContain("/shims/");
      expect(detectShim(resolved.executable)).toBeUndefined();
      expect(readFileSync(resolved.executable).subarray(0, 4).toString("latin1")).toBe("\x7fELF");
      expect(resolved.reason).toContain("pyenv shim");
      expect(resolved.envAdditions.pathPrepend).toEqual([path.dirname(resolved.executable)]);
    },
  );

  it("follows pyenv's global version file", () => {
    const { root, shim } = makeFakePyenv(["3.12.1", "3.9.18"], "3.9.18");
    const info = resolvePyenvShim(shim, makeTempDir("cwd"), { PATH: "" });
    expect(info.resolved).toBe(path.join(root, "versions", "3.9.18", "bin", "python3"));
    expect(info.version).toBe("3.9.18");
  });

  it("lets .python-version in a parent of cwd override the global version", () => {
    const { root, shim } = makeFakePyenv(["3.12.1", "3.9.18"], "3.9.18");
    const project = makeTempDir("project");
    writeFileSync(path.join(project, ".python-version"), "# pinned\n3.12.1\n");
    const cwd = path.join(project, "src", "pkg");
    mkdirSync(cwd, { recursive: true });
    expect(resolvePyenvShim(shim, cwd, { PATH: "" }).resolved).toBe(
      path.join(root, "versions", "3.12.1", "bin", "python3"),
    );
  });

  it("lets PYENV_VERSION override files, and accepts a prefix like 3.12", () => {
    const { root, shim } = makeFakePyenv(["3.12.1", "3.12.10", "3.9.18"], "3.9.18");
    const info = resolvePyenvShim(shim, makeTempDir("cwd"), { PATH: "", PYENV_VERSION: "3.12" });
    expect(info.resolved).toBe(path.join(root, "versions", "3.12.10", "bin", "python3"));
  });

  it("resolves `system` to the next python3 on PATH that is not a shim", () => {
    const { shim } = makeFakePyenv([], "system");
    const system = makePathDir(REAL_PYTHON);
    const info = resolvePyenvShim(shim, makeTempDir("cwd"), { PATH: `${path.dirname(shim)}:${system}` });
    expect(info.resolved).toBe(path.join(system, "python3"));
  });

  it("uses the shim's resolution in a full search, so the shim itself is never run", async () => {
    const { root, shim } = makeFakePyenv(["3.11.99"], "3.11.99");
    // The fake shim's pyenv does not exist: running the shim would fail, so success proves it was bypassed.
    const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([path.dirname(shim)]) });
    expect(resolved.executable).toBe(path.join(root, "versions", "3.11.99", "bin", "python3"));
    expect(resolved.source).toBe("PATH");
  });
});

describe("other shims", () => {
  it("replaces a shim it cannot read with the sys.executable the preflight reports", async () => {
    const shimsDir = path.join(makeTempDir("tool"), "shims");
    writeScript(path.join(shimsDir, "python3"), `exec "${REAL_PYTHON}" "$@"`);
    const resolved = await resolvePython({ cwd: makeTempDir("cwd"), env: makeEnv([shimsDir]) });
    expect(resolved.candidate).toBe(path.join(shimsDir, "python3"));
    expect(resolved.executable).toBe(REAL_PYTHON);
    expect(resolved.shim?.kind).toBe("script");
  });

  it("keeps a deliberate wrapper script outside a shims folder as the interpreter", async () => {
    const wrapper = writeScript(
      path.join(makeTempDir("wrap"), "python-in-box"),
      `exec "${REAL_PYTHON}" "$@"`,
    );
    const resolved = await resolvePython({ python: wrapper, cwd: makeTempDir("cwd"), env: makeEnv([]) });
    expect(resolved.executable).toBe(wrapper);
    expect(resolved.shim).toBeUndefined();
  });
});

describe("the preflight cache", () => {
  it("runs an interpreter once per process and checks it again after it changed on disk", async () => {
    const dir = makeTempDir("cache");
    const counter = path.join(dir, "runs");
    const python = writeScript(
      path.join(dir, "bin", "python3"),
      `echo run >> "${counter}"\nexec "${REAL_PYTHON}" "$@"`,
    );
    const env = makeEnv([path.join(dir, "bin")]);
    const cwd = makeTempDir("cwd");
    const first = await resolvePython({ cwd, env });
    const second = await resolvePython({ cwd, env });
    expect(second.executable).toBe(python);
    expect(second.version).toBe(first.version);
    expect(readFileSync(counter, "utf8")).toBe("run\n");

    writeScript(python, `echo run >> "${counter}"\necho "I am broken now"`);
    const later = new Date(Date.now() + 5000);
    utimesSync(python, later, later);
    await expect(resolvePython({ cwd, env })).rejects.toMatchObject({ code: "PYTHON_NOT_FOUND" });
    expect(readFileSync(counter, "utf8")).toBe("run\nrun\n");
  });

  it("remembers a success across processes in $EVALKIT_HOME/cache unless turned off", async () => {
    const dir = makeTempDir("cache");
    const counter = path.join(dir, "runs");
    writeScript(path.join(dir, "bin", "python3"), `echo run >> "${counter}"\nexec "${REAL_PYTHON}" "$@"`);
    const env = makeEnv([path.join(dir, "bin")]);
    await resolvePython({ cwd: dir, env });
    clearPreflightCache(); // what a new process starts with
    const fromDisk = await resolvePython({ cwd: dir, env });
    expect(fromDisk.preflightMs).toBe(0);
    expect(readFileSync(counter, "utf8")).toBe("run\n");
    expect(existsSync(path.join(env.EVALKIT_HOME as string, "cache", "python-preflight.json"))).toBe(true);

    clearPreflightCache();
    await resolvePython({ cwd: dir, env: { ...env, EVALKIT_PYTHON_CACHE: "0" } });
    expect(readFileSync(counter, "utf8")).toBe("run\nrun\n");
  });

  it("does not cache a failure: an interpreter that starts working is accepted on the next call", async () => {
    const dir = makeTempDir("cache");
    const ready = path.join(dir, "ready");
    // The file stays the same; only the outside world changes (like a mounted disk or a finished install).
    const python = writeScript(
      path.join(dir, "bin", "python3"),
      `[ -f "${ready}" ] || exit 1\nexec "${REAL_PYTHON}" "$@"`,
    );
    const env = makeEnv([path.join(dir, "bin")]);
    await expect(resolvePython({ cwd: dir, env })).rejects.toMatchObject({ code: "PYTHON_NOT_FOUND" });
    writeFileSync(ready, "");
    const resolved = await resolvePython({ cwd: dir, env });
    expect(resolved.executable).toBe(python);
  });
});
