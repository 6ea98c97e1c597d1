// evalkit as a user reaches it: the eval tool from the built package (dist/), and the raw PythonKernel below it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const DIST = new URL("../../dist/", import.meta.url);

/** Imports createEvalTool and PythonKernel from the built package's main export (dist/index.js). */
export async function loadEvalkit() {
  if (!existsSync(fileURLToPath(new URL("index.js", DIST)))) {
    throw new Error("dist/ is missing: run `npm run build` first (npm run bench does)");
  }
  const { createEvalTool, PythonKernel, probeSandbox } = await import(new URL("index.js", DIST).href);
  return { createEvalTool, PythonKernel, probeSandbox };
}

/** One eval tool in session mode with Python only, on the given interpreter. */
export function createBenchTool(api, python, cwd, extra = {}) {
  return api.createEvalTool({ python, cwd, js: false, defaultTimeout: 600, maxTimeout: 3600, ...extra });
}

/** Runs cells through the tool; throws when a cell that should succeed did not. */
export async function runCells(tool, codes, context = {}) {
  const result = await tool.execute({ cells: codes.map((code) => ({ code })) }, context);
  return result;
}

export function assertOk(result, what) {
  if (!result.details.ok) {
    const cell = result.details.cells.find((c) => c.status !== "ok");
    throw new Error(`${what}: cell ended ${cell?.status}: ${cell?.text?.slice(0, 500)}`);
  }
  return result;
}
