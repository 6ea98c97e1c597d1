// `evalkit/ai-sdk`: the eval tool mounted with the real Vercel AI SDK's `tool()`, run through its execute path.
import { asSchema } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { createAiSdkEvalTool } from "../../src/integrations/ai-sdk.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";
import { cleanupTools, makeTool } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const options = (signal?: AbortSignal) => ({
  toolCallId: "call-1",
  messages: [],
  ...(signal ? { abortSignal: signal } : {}),
});

describe("createAiSdkEvalTool", () => {
  it("carries evalkit's description and JSON Schema, runs cells and hands text and images to the model", async () => {
    const evalTool = makeTool();
    const aiTool = createAiSdkEvalTool(evalTool);
    expect(aiTool.description).toBe(evalTool.description);
    expect(await asSchema(aiTool.inputSchema).jsonSchema).toEqual(evalTool.inputSchema);
    const output = (await aiTool.execute!(
      {
        cells: [{ code: "x = 40" }, { code: `display({"image/png": "${PNG}"}, raw=True)\nx + 2` }],
      },
      options(),
    )) as EvalToolResult;
    expect(output.details.ok).toBe(true);
    const model = await aiTool.toModelOutput!({ toolCallId: "call-1", input: { cells: [] }, output });
    expect(model.type).toBe("content");
    const value = (model as { value: { type: string; text?: string; data?: string; mediaType?: string }[] })
      .value;
    expect(value.some((part) => part.type === "text" && part.text?.includes("42"))).toBe(true);
    expect(value).toContainEqual({ type: "image-data", data: PNG, mediaType: "image/png" });
  });

  it("rejects invalid input naming the field, and cancels the running cell on the SDK's abort signal", async () => {
    const aiTool = createAiSdkEvalTool(makeTool());
    await expect(aiTool.execute!({ cells: [{ code: 1 }] } as never, options())).rejects.toThrow(
      /cells\[0\]\.code/,
    );
    const controller = new AbortController();
    const running = aiTool.execute!(
      { cells: [{ code: "import time; time.sleep(60)" }] },
      options(controller.signal),
    );
    setTimeout(() => controller.abort(), 1000);
    const output = (await running) as EvalToolResult;
    expect(output.details.cells[0]?.status).toBe("cancelled");
  }, 60_000);
});
