// completion() in cells answered through MCP sampling when the client declares it, a clear error otherwise.
import { type CreateMessageRequest, CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

describe("evalkit mcp sampling", () => {
  it("serves completion() through the client's createMessage", async () => {
    const requests: CreateMessageRequest["params"][] = [];
    const server = await startServer({
      capabilities: { sampling: {} },
      setup: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          requests.push(request.params);
          const first = request.params.messages[0]?.content;
          const prompt = first && !Array.isArray(first) && first.type === "text" ? first.text : "";
          const answer = request.params.systemPrompt?.includes("JSON Schema")
            ? '```json\n{"city": "Paris"}\n```'
            : `echo: ${prompt}`;
          return { role: "assistant", model: "test-model", content: { type: "text", text: answer } };
        }),
    });
    const result = await callEval(server.client, [
      { code: "print(completion('What is 2+2?', system='Be brief.', model='small'))" },
      {
        code: "completion('Capital of France?', schema={'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']})",
      },
    ]);
    expect(result.isError, textOf(result)).toBe(false);
    expect(textOf(result)).toContain("echo: What is 2+2?");
    expect(textOf(result)).toContain("{'city': 'Paris'}");
    expect(requests[0]).toMatchObject({
      systemPrompt: "Be brief.",
      modelPreferences: { hints: [{ name: "small" }] },
      maxTokens: 4096,
    });
    expect(requests[1]?.systemPrompt).toContain('"required":["city"]');
  });

  it("turns a sampling failure into a Python exception in the cell", async () => {
    const server = await startServer({
      capabilities: { sampling: {} },
      setup: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async () => {
          throw new Error("the user declined the sampling request");
        }),
    });
    const result = await callEval(server.client, [
      { code: "try:\n    completion('hi')\nexcept Exception as e:\n    print('caught:', e)" },
    ]);
    expect(textOf(result)).toContain("caught:");
    expect(textOf(result)).toContain("declined");
  });

  it("gives cells a clear error when the client did not declare sampling", async () => {
    const server = await startServer();
    const result = await callEval(server.client, [{ code: "completion('hi')" }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("completion()");
    expect(textOf(result)).toMatch(/no host handler registered/);
  });
});
