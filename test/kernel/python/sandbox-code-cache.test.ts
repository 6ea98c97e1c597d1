// Sandboxed kernels get the runner's compiled-code cache: built outside the sandbox, read-only inside it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ExecuteOutcome } from "../../../src/kernel/kernel.js";
import { collectRunnerSources } from "../../../src/kernel/python/runner-bundle.js";
import { startKernel, TEST_PYTHON } from "../../helpers/python.js";
import { sandboxSkipReason } from "../../helpers/sandbox.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-sandbox-cache-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SANDBOX = { network: false, writable: [] as string[] };
const MODULES = Object.keys(collectRunnerSources().modules);

function dirIn(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function env(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
}

function text(outcome: ExecuteOutcome): string {
  return outcome.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
}

const compiled = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".bin"));

describe.skipIf(sandboxSkipReason !== "")(
  `the compiled-code cache of sandboxed kernels ${sandboxSkipReason}`,
  () => {
    it("is built outside the sandbox for a user who never ran an unsandboxed kernel, once per interpreter", async () => {
      const cache = join(dirIn("fresh-home"), "cache", "runner-code"); // does not exist yet
      const kernel = await startKernel({
        cwd: dirIn("cwd-1"),
        env: env(),
        sandbox: SANDBOX,
        codeCacheDir: cache,
      });
      // Every runner module is there, compiled by the host's run of the interpreter.
      const files = compiled(cache);
      for (const name of MODULES)
        expect(
          files.some((file) => file.startsWith(`${name}-`)),
          name,
        ).toBe(true);
      expect(statSync(cache).mode & 0o777).toBe(0o700);
      // The sandboxed kernel reads it but cannot write it: a cell cannot plant code that later kernels would run.
      const target = join(cache, files[0]!);
      const attempt = [
        "import os",
        "try:",
        `    open(${JSON.stringify(target)}, "wb").write(b"planted")`,
        "    print('wrote')",
        "except OSError as e:",
        "    print(type(e).__name__, e.errno)",
      ].join("\n");
      expect(text(await kernel.execute(attempt))).toMatch(/^OSError 30\n$/); // EROFS
      await kernel.shutdown();

      // The next sandboxed kernel finds the stamp and compiles nothing again.
      const before = Object.fromEntries(
        compiled(cache).map((file) => [file, statSync(join(cache, file)).mtimeMs]),
      );
      const second = await startKernel({
        cwd: dirIn("cwd-2"),
        env: env(),
        sandbox: SANDBOX,
        codeCacheDir: cache,
      });
      expect(text(await second.execute("print(6 * 7)"))).toBe("42\n");
      const after = Object.fromEntries(
        compiled(cache).map((file) => [file, statSync(join(cache, file)).mtimeMs]),
      );
      expect(after).toEqual(before);
    }, 60_000);

    it("is built by the interpreter behind a venv in the cwd (a symlink), never by the venv's own files", async () => {
      const cwd = dirIn("cwd-venv-link");
      execFileSync(TEST_PYTHON, ["-m", "venv", "--without-pip", join(cwd, "venv")]);
      // A cell could rewrite this file; the compile run must not read it, so here it points nowhere.
      writeFileSync(join(cwd, "venv", "pyvenv.cfg"), "home = /nonexistent-planted\n");
      const cache = join(dirIn("venv-link-home"), "cache", "runner-code");
      const python = join(cwd, "venv", "bin", "python3");
      // The venv, broken on purpose, may not start: the cache is what this test looks at.
      await startKernel({ python, cwd, env: env(), sandbox: SANDBOX, codeCacheDir: cache }).catch(
        () => undefined,
      );
      const files = compiled(cache);
      for (const name of MODULES)
        expect(
          files.some((file) => file.startsWith(`${name}-`)),
          name,
        ).toBe(true);
    }, 60_000);

    it("is not built with an interpreter binary the sandboxed cell could change (a copy inside its cwd)", async () => {
      const cwd = dirIn("cwd-venv-copy");
      execFileSync(TEST_PYTHON, ["-m", "venv", "--copies", "--without-pip", join(cwd, "venv")]);
      const cache = join(dirIn("venv-copy-home"), "cache", "runner-code");
      const kernel = await startKernel({
        python: join(cwd, "venv", "bin", "python3"),
        cwd,
        env: env(),
        sandbox: SANDBOX,
        codeCacheDir: cache,
      });
      expect(text(await kernel.execute("print('ran')"))).toBe("ran\n");
      expect(() => readdirSync(cache)).toThrow(/ENOENT/);
    }, 60_000);
  },
);
