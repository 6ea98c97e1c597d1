// JavaScript cells through the eval tool: beside Python in one call, bridge handlers, runaway loops.
import { afterEach, describe, expect, it } from "vitest";
import { cleanupTools, makeTool } from "./tool-helpers.js";

afterEach(cleanupTools);

describe("eval tool with JavaScript cells", () => {
  it("keeps each runtime's state when py and js cells are mixed in one call and across calls", async () => {
    const tool = makeTool();
    const first = await tool.execute({
      cells: [
        { language: "py", code: "shared = 'python side'" },
        { language: "js", code: "const shared = 'js side'; let counter = 1" },
        { language: "py", code: "shared" },
        { language: "js", code: "shared + ' ' + counter" },
      ],
    });
    expect(first.details.ok).toBe(true);
    expect(first.details.cells.map((c) => c.text.trim())).toEqual(["", "", "'python side'", "'js side 1'"]);
    const second = await tool.execute({ cells: [{ language: "js", code: "counter += 1; counter" }] });
    expect(second.details.cells[0]?.text.trim()).toBe("2");
  });

  it("lets a JS cell call a registered completion handler", async () => {
    const tool = makeTool({
      handlers: { completion: async (params) => `echo: ${String(params.prompt)}` },
    });
    const result = await tool.execute({ cells: [{ language: "js", code: "await completion('ping')" }] });
    expect(result.details.cells[0]).toMatchObject({ status: "ok" });
    expect(result.details.cells[0]?.text).toContain("echo: ping");
  });

  it("ends a synchronous busy loop with timeout 1 within a few seconds, and the next call works", async () => {
    const tool = makeTool();
    const started = Date.now();
    const result = await tool.execute({ cells: [{ language: "js", code: "while (true) {}", timeout: 1 }] });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(["timeout", "killed"]).toContain(result.details.cells[0]?.status);
    const next = await tool.execute({ cells: [{ language: "js", code: "6 * 7" }] });
    expect(next.details.cells[0]).toMatchObject({ status: "ok" });
    expect(next.details.cells[0]?.text.trim()).toBe("42");
  });
});
