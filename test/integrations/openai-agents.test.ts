// `evalkit/openai-agents`: the eval tool as a real OpenAI Agents SDK function tool, invoked as an agent run would.
import { RunContext } from "@openai/agents";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIAgentsEvalTool } from "../../src/integrations/openai-agents.js";
import { cleanupTools, makeTool } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("createOpenAIAgentsEvalTool", () => {
  it("is a non-strict function tool with evalkit's schema that runs cells and returns text and images", async () => {
    const evalTool = makeTool();
    const agentTool = createOpenAIAgentsEvalTool(evalTool);
    expect(agentTool).toMatchObject({ type: "function", name: "eval", strict: false });
    expect(agentTool.description).toBe(evalTool.description);
    expect(agentTool.parameters).toEqual(evalTool.inputSchema);
    // The model's arguments arrive as a JSON string, as in a run.
    const args = JSON.stringify({
      cells: [{ code: "x = 40" }, { code: `display({"image/png": "${PNG}"}, raw=True)\nx + 2` }],
    });
    const output = (await agentTool.invoke(new RunContext(), args)) as { type: string; text?: string }[];
    expect(output.some((part) => part.type === "text" && part.text?.includes("42"))).toBe(true);
    expect(output).toContainEqual({ type: "image", image: { data: PNG, mediaType: "image/png" } });
  });

  it("answers invalid input with a message naming the field instead of failing the run", async () => {
    const agentTool = createOpenAIAgentsEvalTool(makeTool());
    const output = await agentTool.invoke(new RunContext(), JSON.stringify({ cells: [{ code: 1 }] }));
    expect(String(output)).toMatch(/cells\[0\]\.code/);
  });
});
