// Shared test settings: which interpreter integration tests use, and a kernel factory that cleans up.

import { execFileSync } from "node:child_process";
import { afterEach } from "vitest";
import { PythonKernel, type PythonKernelOptions } from "../../src/kernel/python-kernel.js";

/** Interpreter for integration tests (the matrix runner sets EVALKIT_TEST_PYTHON per version). A pyenv shim
 * on PATH costs 300 ms a start, so the default is the real binary behind `python3`. */
export const TEST_PYTHON =
  process.env.EVALKIT_TEST_PYTHON ??
  execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** Debian's interpreter, which has matplotlib, pandas, PIL and numpy in CI. */
export const DEBIAN_PYTHON = "/usr/bin/python3";

const started: PythonKernel[] = [];

/** Start a real kernel that is shut down after the current test. */
export async function startKernel(options: Partial<PythonKernelOptions> = {}): Promise<PythonKernel> {
  const kernel = new PythonKernel({ python: TEST_PYTHON, ...options });
  started.push(kernel);
  await kernel.start();
  return kernel;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((kernel) => kernel.shutdown()));
});
