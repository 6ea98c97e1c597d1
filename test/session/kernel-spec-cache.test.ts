// A manager's kernel specs: Python is resolved once per cwd within the cache window (not for every warm cell),
// the same spec comes back while nothing it depends on changed, and a failed resolution is not remembered.
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { normaliseCwd } from "../../src/session/call-cwd.js";
import { KernelSpecCache, type SpecSettings } from "../../src/session/kernel-spec-cache.js";
import type { ResolvedInterpreter } from "../../src/session/session-types.js";

function settings(
  resolve: (cwd: string) => Promise<ResolvedInterpreter>,
  resolveCacheMs = 60_000,
): SpecSettings {
  return {
    resolveInterpreter: resolve,
    resolveCacheMs,
    extraEnv: { EXTRA: "1" },
    launcher: undefined,
    interruptGraceMs: 500,
    sandbox: undefined,
    limits: undefined,
  };
}

describe("KernelSpecCache", () => {
  it("resolves Python once per cwd within the window and hands back the very same spec", async () => {
    const asked: string[] = [];
    const cache = new KernelSpecCache(
      settings(async (cwd) => {
        asked.push(cwd);
        return { executable: "/usr/bin/python3", env: { PATH: "/usr/bin" } };
      }),
    );
    const first = await cache.describeSpec("py", "s", "/a");
    expect(first).toMatchObject({
      language: "py",
      cwd: "/a",
      sessionId: "s",
      interpreter: "/usr/bin/python3",
    });
    expect(await cache.describeSpec("py", "s", "/a")).toBe(first);
    expect(cache.describeSpecNow("py", "s", "/a")).toBe(first);
    // Another session or cwd gets its own spec; only a new cwd is resolved again.
    const other = await cache.describeSpec("py", "t", "/a");
    expect(other).not.toBe(first);
    expect(other.sessionId).toBe("t");
    await cache.describeSpec("py", "s", "/b");
    expect(asked).toEqual(["/a", "/b"]);
  });

  it("resolves again once the window has passed, and never remembers a failed resolution", async () => {
    let calls = 0;
    const cache = new KernelSpecCache(
      settings(async () => {
        calls += 1;
        if (calls === 1) throw new Error("no python yet");
        return { executable: `/py${calls}`, env: {} };
      }, 0),
    );
    await expect(cache.describeSpec("py", "s", "/a")).rejects.toThrow("no python yet");
    expect((await cache.describeSpec("py", "s", "/a")).interpreter).toBe("/py2");
    expect((await cache.describeSpec("py", "s", "/a")).interpreter).toBe("/py3");
    expect(cache.describeSpecNow("py", "s", "/a")).toBeUndefined();
  });

  it("gives JS kernels the plain environment and no interpreter, without resolving Python", async () => {
    const cache = new KernelSpecCache(
      settings(async () => {
        throw new Error("must not be called");
      }),
    );
    const spec = await cache.describeSpec("js", "s", "/a");
    expect(spec.interpreter).toBeUndefined();
    expect(spec.env.EXTRA).toBe("1");
    expect(cache.describeSpecNow("js", "s", "/a")).toBeUndefined();
  });
});

describe("normaliseCwd", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("gives the real path of a directory and CWD_INVALID for a missing path or a file", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "evalkit-cwd-"));
    const link = path.join(dir, "link");
    writeFileSync(path.join(dir, "file"), "x");
    symlinkSync(dir, link);
    expect(normaliseCwd(link)).toBe(realpathSync(dir));
    for (const bad of [path.join(dir, "missing"), path.join(dir, "file")]) {
      let error: unknown;
      try {
        normaliseCwd(bad);
      } catch (err) {
        error = err;
      }
      expect(isEvalkitError(error, "CWD_INVALID")).toBe(true);
    }
  });
});
