// One `tools/call` of the eval tool: validation as a tool error, progress, cancellation, the result as MCP content.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isEvalkitError } from "../errors.js";
import type { EvalTool } from "../tool/eval-tool.js";
import type { EvalToolResult } from "../tool/run-call.js";
import { createProgressReporter, type ProgressParams } from "./progress-reporter.js";
import {
  fitDetailsToBudget,
  fitImagesToBudget,
  fitTextToBudget,
  MCP_MESSAGE_LIMIT_CHARS,
} from "./result-budget.js";

export interface EvalCallContext {
  /** Aborted by the SDK when the client sends `notifications/cancelled` for this request. */
  signal: AbortSignal;
  /** The request's `_meta.progressToken`: present only when the client asked for progress. */
  progressToken: string | number | undefined;
  sendProgress: (params: ProgressParams) => void;
  heartbeatMs: number;
}

/** A tool error the model reads (`isError: true`): the server keeps serving. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Maps the tool's result to MCP: text and image blocks, `details` as structured content (both within the
 * message budget of result-budget.ts), isError unless ok. */
export function toCallToolResult(result: EvalToolResult): CallToolResult {
  const content: CallToolResult["content"] = result.content.map((block) =>
    block.type === "image"
      ? { type: "image", data: block.data, mimeType: block.mimeType }
      : { type: "text", text: block.text },
  );
  if (content.length === 0) content.push({ type: "text", text: "(no output)" });
  const fitted: CallToolResult = {
    content: fitTextToBudget(fitImagesToBudget(content)),
    structuredContent: fitDetailsToBudget(result.details) as unknown as Record<string, unknown>,
    isError: !result.details.ok,
  };
  // Last resort, whatever slipped past the budgets: a connection must never be lost to one big message.
  if (JSON.stringify(fitted).length > MCP_MESSAGE_LIMIT_CHARS) {
    const note = "[this result was too large for one MCP message; the artifacts and a narrower call have it]";
    return { content: [{ type: "text", text: note }], isError: fitted.isError };
  }
  return fitted;
}

/** Runs one call; never throws for bad input or anything a cell did. */
export async function runEvalToolCall(
  tool: EvalTool,
  args: unknown,
  context: EvalCallContext,
): Promise<CallToolResult> {
  // The tool validates the arguments, once (the SDK's generic tools/call schema does not look inside them): its
  // INVALID_INPUT becomes the tool error below. Before that parse, only the cell count for progress is read.
  const input = args ?? {};
  const reporter =
    context.progressToken === undefined
      ? undefined
      : createProgressReporter({
          progressToken: context.progressToken,
          // A job call learns the job's cell count from its first update.
          totalCells: countCells(input),
          send: context.sendProgress,
          heartbeatMs: context.heartbeatMs,
        });
  try {
    const result = await tool.execute(input, {
      signal: context.signal,
      ...(reporter ? { onUpdate: (progress) => reporter.update(progress) } : {}),
    });
    return toCallToolResult(result);
  } catch (err) {
    const problems = isEvalkitError(err, "INVALID_INPUT") ? err.details.problems : undefined;
    if (Array.isArray(problems)) {
      return toolError(
        `invalid eval input: ${problems.join("; ")}\n` +
          'expected {"cells": [{"code": "...", "language"?: "py" | "js", "title"?, "timeout"?, "reset"?}], "yieldAfter"?} ' +
          'or {"job": "<id>", "wait"?: seconds} or {"job": "<id>", "cancel": true}',
      );
    }
    if (isEvalkitError(err)) return toolError(`eval failed: ${err.message} [${err.code}]`);
    return toolError(`eval failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    reporter?.stop();
  }
}

/** The number of cells a call asks for (0 for a job call), read before the tool validates the call. */
function countCells(input: unknown): number {
  const cells =
    typeof input === "object" && input !== null ? (input as { cells?: unknown }).cells : undefined;
  return Array.isArray(cells) ? cells.length : 0;
}
