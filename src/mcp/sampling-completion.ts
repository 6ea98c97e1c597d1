// completion() in cells answered by the MCP client's model through sampling (`sampling/createMessage`).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CreateMessageRequestParamsBase } from "@modelcontextprotocol/sdk/types.js";
import type { HostBridgeHandler } from "../session/bridge-handlers.js";

export interface SamplingCompletionOptions {
  maxTokens: number;
  timeoutMs: number;
}

/** Builds the sampling request for one `completion(prompt, model=, system=, schema=)` call. */
export function buildSamplingRequest(
  params: Record<string, unknown>,
  maxTokens: number,
): CreateMessageRequestParamsBase {
  const prompt = typeof params.prompt === "string" ? params.prompt : String(params.prompt ?? "");
  const system = typeof params.system === "string" && params.system !== "" ? params.system : undefined;
  const model = typeof params.model === "string" && params.model !== "" ? params.model : undefined;
  const schema = params.schema;
  // The client's model does not see the schema otherwise; the cell checks the answer against it.
  const schemaNote =
    schema === undefined || schema === null
      ? undefined
      : `Answer with JSON only (no prose), matching this JSON Schema:\n${JSON.stringify(schema)}`;
  const systemPrompt = [system, schemaNote].filter((part) => part !== undefined).join("\n\n");
  const request: CreateMessageRequestParamsBase = {
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens,
    includeContext: "none",
  };
  if (systemPrompt !== "") request.systemPrompt = systemPrompt;
  if (model !== undefined) request.modelPreferences = { hints: [{ name: model }] };
  return request;
}

/** The `completion` bridge handler: one sampling request per call, cancelled when the cell ends. */
export function createSamplingCompletion(
  server: Server,
  options: SamplingCompletionOptions,
): HostBridgeHandler {
  return async (params, context) => {
    const result = await server.createMessage(buildSamplingRequest(params, options.maxTokens), {
      signal: context.signal,
      timeout: options.timeoutMs,
    });
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    const texts = blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
    if (texts.length === 0) {
      const kinds = blocks.map((block) => block.type).join(", ") || "nothing";
      throw new Error(`completion(): the MCP client's sampling answer had no text (got ${kinds})`);
    }
    return texts.join("");
  };
}
