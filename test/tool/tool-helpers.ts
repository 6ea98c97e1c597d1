// Shared set-up for eval tool tests: the real interpreter, temp artifact dirs, tools disposed after each test.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EvalkitError } from "../../src/errors.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";
import type { EvalToolOptions } from "../../src/tool/tool-options.js";
import { TEST_PYTHON } from "../helpers/interpreters.js";

export { TEST_PYTHON };
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

const tools: EvalTool[] = [];
const dirs: string[] = [];

/** A fresh temp directory, removed by {@link cleanupTools}. */
export function makeTempDir(label = "tool"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `evalkit-${label}-`));
  dirs.push(dir);
  return dir;
}

/** A tool on the test interpreter with its own artifact directory; disposed by {@link cleanupTools}. */
export function makeTool(options: EvalToolOptions = {}): EvalTool {
  const tool = createEvalTool({ python: TEST_PYTHON, artifactsDir: makeTempDir("artifacts"), ...options });
  tools.push(tool);
  return tool;
}

/** Disposes every tool made by {@link makeTool} and removes temp dirs. */
export async function cleanupTools(): Promise<void> {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The text blocks of a result, joined. */
export function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** Collects a job to its end with `wait` calls; every return, the first one included. */
export async function collectToEnd(
  tool: EvalTool,
  first: EvalToolResult,
  wait = 30,
): Promise<EvalToolResult[]> {
  const returns = [first];
  let last = first;
  while (last.details.job?.state === "running") {
    last = await tool.execute({ job: last.details.job.id, wait });
    returns.push(last);
  }
  return returns;
}

/** The EvalkitError `promise` rejects with; fails when it resolves or rejects with something else. */
export async function rejection(promise: Promise<unknown>): Promise<EvalkitError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof EvalkitError) return err;
    throw err;
  }
  throw new Error("expected the call to be rejected");
}
