// `evalkit/ai-sdk` inside a real generateText loop: the model (the SDK's own mock) calls eval, reads its result.
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { createAiSdkEvalTool } from "../../src/integrations/ai-sdk.js";
import { cleanupTools, makeTool } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe("the eval tool in a generateText loop", () => {
  it("runs the cells the model asks for and gives the model their text and image on the next step", async () => {
    const prompts: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        if (prompts.length === 1) {
          // The SDK hands the model evalkit's JSON Schema as the tool's parameters.
          expect(options.tools?.[0]).toMatchObject({ type: "function", name: "eval" });
          const cells = [{ code: "x = 40" }, { code: `display({"image/png": "${PNG}"}, raw=True)\nx + 2` }];
          return {
            content: [
              { type: "tool-call", toolCallId: "call-1", toolName: "eval", input: JSON.stringify({ cells }) },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: "text", text: "x + 2 is 42" }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const evalTool = makeTool();
    const result = await generateText({
      model,
      tools: { eval: createAiSdkEvalTool(evalTool) },
      stopWhen: stepCountIs(3),
      prompt: "What is 40 + 2? Use Python.",
    });
    expect(result.text).toBe("x + 2 is 42");
    expect(result.steps).toHaveLength(2);
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult).toMatchObject({ toolName: "eval", output: { details: { ok: true } } });
    // What the model received on the second step: the tool message with evalkit's text and the image.
    const second = JSON.stringify(prompts[1]);
    expect(second).toContain('"role":"tool"');
    expect(second).toMatch(/42/);
    expect(second).toContain(PNG);
  });
});
