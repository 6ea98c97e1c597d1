// `evalkit/openai-agents` inside a real Agents SDK run: a scripted model calls eval and reads its output back.
import { Agent, type Model, type ModelRequest, type ModelResponse, run, Usage } from "@openai/agents";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIAgentsEvalTool } from "../../src/integrations/openai-agents.js";
import { cleanupTools, makeTool } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

/** A model that first calls eval, then answers; it records every request the runner makes. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    if (this.requests.length === 1) {
      const cells = [{ code: "import math" }, { code: "print('pi is', round(math.pi, 4))" }];
      return {
        usage: new Usage(),
        output: [
          {
            type: "function_call",
            callId: "call-1",
            name: "eval",
            arguments: JSON.stringify({ cells }),
            status: "completed",
          },
        ],
      };
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "pi is 3.1416" }],
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the run is not streamed, so this is never called
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed in this test");
  }
}

describe("the eval tool in an Agents SDK run", () => {
  it("runs the cells the model calls for and returns their output to the model on the next turn", async () => {
    const model = new ScriptedModel();
    const agent = new Agent({
      name: "analyst",
      instructions: "Use the eval tool.",
      model,
      tools: [createOpenAIAgentsEvalTool(makeTool())],
    });
    const result = await run(agent, "What is pi to 4 places?");
    expect(result.finalOutput).toBe("pi is 3.1416");
    expect(model.requests[0]?.tools).toContainEqual(
      expect.objectContaining({ type: "function", name: "eval" }),
    );
    // The second request carries the tool's output, as the SDK feeds it back to the model.
    const fed = JSON.stringify(model.requests[1]?.input);
    expect(fed).toContain("function_call_result");
    expect(fed).toContain("pi is 3.1416");
  });
});
