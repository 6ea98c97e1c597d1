// The runner's source must compile and start on every CPython 3.8–3.13 the machine image has.

import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PythonKernel } from "../../../src/kernel/python/python-kernel.js";
import { PYTHON_DIR } from "../../../src/kernel/python/runner-bundle.js";
import { findSupportedInterpreters, SUPPORTED_MINORS } from "../../helpers/interpreters.js";

function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__pycache__" ? [] : pythonFiles(path);
    return entry.name.endsWith(".py") ? [path] : [];
  });
}

const interpreters = findSupportedInterpreters();
const files = [join(PYTHON_DIR, "bootstrap.py"), ...pythonFiles(join(PYTHON_DIR, "evalkit_kernel"))];

describe("runner compatibility", () => {
  it("finds at least one supported interpreter and lists which versions ran", () => {
    const missing = SUPPORTED_MINORS.map((m) => `3.${m}`).filter((v) => !interpreters.has(v));
    console.log(
      `runner compat: ran ${[...interpreters.keys()].join(", ") || "none"}; missing ${missing.join(", ") || "none"}`,
    );
    expect(interpreters.size).toBeGreaterThan(0);
  });

  for (const [version, python] of interpreters) {
    it(`compiles every runner file and runs a cell on Python ${version}`, async () => {
      const script =
        "import sys\nfor f in sys.argv[1:]:\n    compile(open(f, encoding='utf-8').read(), f, 'exec')\nprint('ok')";
      expect(execFileSync(python, ["-c", script, ...files], { encoding: "utf8" }).trim()).toBe("ok");
      const kernel = new PythonKernel({ python });
      try {
        await kernel.start();
        expect(kernel.info?.pythonVersion.startsWith(`${version}.`)).toBe(true);
        const outcome = await kernel.execute("import sys\nprint(sys.version_info[:2])\n[1, 2][-1]");
        expect(outcome.outputs).toEqual([
          { type: "stream", name: "stdout", text: `(3, ${version.split(".")[1]})\n` },
          { type: "result", data: { "text/plain": "2" } },
        ]);
      } finally {
        await kernel.shutdown();
      }
    });
  }
});
