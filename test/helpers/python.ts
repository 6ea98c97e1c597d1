// Shared test settings: which interpreter integration tests use, and a kernel factory that cleans up.

import { afterEach } from "vitest";
import { PythonKernel, type PythonKernelOptions } from "../../src/kernel/python/python-kernel.js";
import { TEST_PYTHON } from "./interpreters.js";

export { DEBIAN_PYTHON, TEST_PYTHON } from "./interpreters.js";

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
