// How completion(prompt, model=, system=, schema=) becomes a sampling/createMessage request.
import { describe, expect, it } from "vitest";
import { buildSamplingRequest } from "../../src/mcp/sampling-completion.js";

describe("sampling request", () => {
  it("sends the prompt as one user message, with no context and the token budget", () => {
    expect(buildSamplingRequest({ prompt: "Name a prime." }, 100)).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Name a prime." } }],
      maxTokens: 100,
      includeContext: "none",
    });
  });

  it("maps system to systemPrompt and model to a model hint", () => {
    const request = buildSamplingRequest({ prompt: "p", system: "Be brief.", model: "small" }, 10);
    expect(request.systemPrompt).toBe("Be brief.");
    expect(request.modelPreferences).toEqual({ hints: [{ name: "small" }] });
  });

  it("tells the model the JSON Schema the cell will check the answer against", () => {
    const schema = { type: "object", required: ["city"] };
    const request = buildSamplingRequest({ prompt: "p", system: "S", schema }, 10);
    expect(request.systemPrompt).toBe(
      `S\n\nAnswer with JSON only (no prose), matching this JSON Schema:\n${JSON.stringify(schema)}`,
    );
  });
});
