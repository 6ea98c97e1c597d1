// `evalkit mcp --checkpoints`: the tool schema offers checkpoint/restore/undo and they work through the real client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

describe.skipIf(process.platform !== "linux")("evalkit mcp with checkpoints", () => {
  it("lists checkpoint, restore and undo in the schema and rolls state back on request", async () => {
    const server = await startServer({ args: ["--checkpoints"] });
    const { tools } = await server.client.listTools();
    const properties = Object.keys((tools[0]?.inputSchema.properties ?? {}) as Record<string, unknown>);
    expect(properties).toEqual(expect.arrayContaining(["checkpoint", "restore", "undo"]));
    const taken = await server.client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "notes = ['kept']" }], checkpoint: "base" },
    });
    expect(textOf(taken as never)).toContain('[checkpoints] took "base"');
    await callEval(server.client, [{ code: "notes.append('later')" }]);
    const undone = await server.client.callTool({
      name: "eval",
      arguments: { undo: true, cells: [{ code: "print(notes)" }] },
    });
    expect(textOf(undone as never)).toContain("['kept']");
    await callEval(server.client, [{ code: "notes.clear()" }]);
    const restored = await server.client.callTool({
      name: "eval",
      arguments: { restore: "base", cells: [{ code: "print(notes)" }] },
    });
    expect(textOf(restored as never)).toContain("['kept']");
    const details = (restored as { structuredContent?: { checkpoints?: { restored?: string } } })
      .structuredContent;
    expect(details?.checkpoints?.restored).toBe("base");
  }, 60_000);
});
