// The eval tool as an OpenAI Agents SDK function tool (`evalkit/openai-agents`), with evalkit's JSON Schema.
import { type FunctionTool, tool } from "@openai/agents";
import type { EvalTool } from "../tool/eval-tool.js";

/** The shape the SDK's types give a JSON Schema that is not `strict` (its own type is not exported). */
type EvalParameters = {
  type: "object";
  properties: Record<string, never>;
  required: never[];
  additionalProperties: true;
};

/** What the agent gets back: the text blocks, then each image as a data URL. */
type AgentOutput = (
  | { type: "text"; text: string }
  | { type: "image"; image: { data: string; mediaType: string } }
)[];

/**
 * Wraps an eval tool for an `Agent` of `@openai/agents`:
 * `new Agent({ name: "analyst", tools: [createOpenAIAgentsEvalTool(createEvalTool({}))] })`.
 * The schema has optional fields, so the tool is not `strict`; the eval tool validates every call itself and a
 * bad call comes back to the model as a readable error naming the field. Dispose the eval tool when done.
 */
export function createOpenAIAgentsEvalTool(
  evalTool: EvalTool,
): FunctionTool<unknown, EvalParameters, AgentOutput> {
  return tool<EvalParameters, unknown, AgentOutput>({
    name: evalTool.name,
    description: evalTool.description,
    // The SDK sends the schema as it is; its type wants the non-strict shape, which evalkit's schema has in spirit.
    parameters: evalTool.inputSchema as unknown as EvalParameters,
    strict: false,
    execute: async (input, _context, details): Promise<AgentOutput> => {
      const signal = (details as { signal?: AbortSignal } | undefined)?.signal;
      const result = await evalTool.execute(input, signal ? { signal } : {});
      return result.content.map((block) =>
        block.type === "image"
          ? { type: "image", image: { data: block.data, mediaType: block.mimeType } }
          : { type: "text", text: block.text },
      );
    },
    errorFunction: (_context, error) =>
      `eval failed: ${error instanceof Error ? error.message : String(error)}`,
  });
}
