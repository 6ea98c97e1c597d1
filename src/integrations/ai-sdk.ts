// The eval tool as a Vercel AI SDK tool (`evalkit/ai-sdk`): `tool()` with evalkit's JSON Schema; images go back as images.
import { jsonSchema, type Tool, tool } from "ai";
import type { EvalTool } from "../tool/eval-tool.js";
import type { EvalInput } from "../tool/input-schema.js";
import type { EvalToolResult } from "../tool/run-call.js";

/** What the model reads back from one call: the text blocks, then each image. */
type ModelOutput = {
  type: "content";
  value: ({ type: "text"; text: string } | { type: "image-data"; data: string; mediaType: string })[];
};

/**
 * Wraps an eval tool for `generateText`/`streamText` (AI SDK 6):
 * `tools: { eval: createAiSdkEvalTool(createEvalTool({})) }`. The input is validated by the eval tool itself
 * (a bad call becomes the SDK's tool error naming the field); the AI SDK's abort signal cancels the running
 * cell. The tool's result (`content` and `details`) is the output; the model reads its text and images.
 * Dispose the eval tool when done.
 */
export function createAiSdkEvalTool(evalTool: EvalTool): Tool<EvalInput, EvalToolResult> {
  return tool<EvalInput, EvalToolResult>({
    description: evalTool.description,
    inputSchema: jsonSchema<EvalInput>(evalTool.inputSchema),
    execute: (input, { abortSignal }) => evalTool.execute(input, abortSignal ? { signal: abortSignal } : {}),
    toModelOutput: ({ output }): ModelOutput => ({
      type: "content",
      value: output.content.map((block) =>
        block.type === "image"
          ? { type: "image-data", data: block.data, mediaType: block.mimeType }
          : { type: "text", text: block.text },
      ),
    }),
  });
}
