// %pip offline in a real venv kernel: install a local wheel, import it, upgrade it and see the new version at once.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startKernel, TEST_PYTHON } from "../helpers/python.js";
import { describeOutputs, runOk } from "./magics-helpers.js";

const MAKE_WHEEL = resolve(__dirname, "../fixtures/magics-make-wheel.py");

function buildWheel(dir: string, version: string): string {
  return execFileSync(TEST_PYTHON, [MAKE_WHEEL, "evk_demo", version, join(dir, `wheels-${version}`)], {
    encoding: "utf8",
  }).trim();
}

/** A venv for the kernel; borrowing the base interpreter's pip (when it has one) avoids a slow ensurepip. */
function makeVenv(dir: string): string {
  const venv = join(dir, "venv");
  let hasPip = true;
  try {
    execFileSync(TEST_PYTHON, ["-c", "import pip"], { stdio: "ignore" });
  } catch {
    hasPip = false;
  }
  const args = hasPip
    ? ["-m", "venv", "--without-pip", "--system-site-packages", venv]
    : ["-m", "venv", venv];
  execFileSync(TEST_PYTHON, args, { stdio: "ignore" });
  const python = join(venv, "bin", "python");
  expect(existsSync(python)).toBe(true);
  return python;
}

describe("%pip in a real venv kernel", () => {
  it("installs a local wheel offline, and an upgrade is importable without a restart", {
    timeout: 180_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "evalkit-magics-pip-"));
    const first = buildWheel(dir, "1.0");
    const second = buildWheel(dir, "2.0");
    const kernel = await startKernel({ python: makeVenv(dir) });

    const install = await runOk(kernel, `%pip install --no-index ${first}`);
    expect(install.stdout).toContain("Successfully installed evk");
    expect(install.results).toEqual([]);
    expect((await runOk(kernel, "import evk_demo\nevk_demo.__version__")).result).toBe("'1.0'");
    expect((await runOk(kernel, "import sys; sys.prefix == sys.base_prefix")).result).toBe("False");

    const upgrade = await runOk(kernel, `%pip install --no-index ${second}`);
    expect(upgrade.stdout).toContain("Successfully installed evk");
    expect(upgrade.stderr).toContain("evk_demo was already imported");
    const fresh = await runOk(kernel, "import evk_demo\n(evk_demo.__version__, evk_demo.hello())");
    expect(fresh.result).toBe("('2.0', 'hello from evk_demo 2.0')");

    const missing = describeOutputs(await kernel.execute("%pip install --no-index evk-no-such-package"));
    expect(missing.outcome.status).toBe("error");
    expect(missing.outcome.error?.ename).toBe("CalledProcessError");
    expect(missing.stderr).toContain("evk-no-such-package");
  });
});
