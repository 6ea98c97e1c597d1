// A cell controls how deep its display metadata nests: 8,000 levels must neither overflow the host's stack (the
// library, `evalkit exec`, `evalkit mcp`) nor be kept whole; the part past the bound is replaced by a marker.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TOO_DEEP_MARKER } from "../../src/contracts/kernel-values.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import {
  buildCli,
  callEval,
  closeServers,
  ROOT,
  startServer,
  TEST_PYTHON,
  textOf,
} from "../mcp/mcp-helpers.js";

const DEPTH = 8000;
/** Python's JSON encoder recurses once per level: the cell raises its own limit to send the value at all. */
const DEEP_DISPLAY = `import sys
sys.setrecursionlimit(100000)
deep = {}
node = deep
for _ in range(${DEPTH}):
    node["a"] = {}
    node = node["a"]
display({"text/plain": "shown"}, metadata={"deep": deep}, raw=True)
print("after the display")`;

const work = mkdtempSync(path.join(tmpdir(), "evalkit-deep-"));
const tools: EvalTool[] = [];

beforeAll(async () => {
  await buildCli();
}, 180_000);
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
  await closeServers();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** How many levels of `{"a": ...}` a value nests, and what stands at the bottom. */
function descend(value: unknown): { levels: number; bottom: unknown } {
  let levels = 0;
  let node = value;
  while (typeof node === "object" && node !== null && "a" in node) {
    node = (node as { a: unknown }).a;
    levels++;
  }
  return { levels, bottom: node };
}

describe("deep data from a kernel", () => {
  it("keeps the library's host alive and cuts metadata nested 8,000 levels at the bound", async () => {
    const tool = createEvalTool({ python: TEST_PYTHON, cwd: work, js: false });
    tools.push(tool);
    const result = await tool.execute({ cells: [{ code: DEEP_DISPLAY }, { code: "print(1 + 1)" }] });
    expect(result.details.cells.map((cell) => cell.status)).toEqual(["ok", "ok"]);
    expect(result.details.cells[0]?.text).toContain("after the display");
    const display = result.details.cells[0]?.outputs.find((output) => output.type === "display");
    const metadata = display?.type === "display" ? display.metadata : undefined;
    const { levels, bottom } = descend(metadata?.deep);
    expect(levels).toBeLessThan(100);
    expect(bottom).toBe(TOO_DEEP_MARKER);
    // The result still encodes: what --json and MCP do with it.
    expect(() => JSON.stringify(result.details)).not.toThrow();
  }, 60_000);

  it("lets `evalkit exec --json` finish and print valid JSON", () => {
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "bin", "evalkit.js"), "exec", "--json", "--python", TEST_PYTHON, "-c", DEEP_DISPLAY],
      { cwd: work, encoding: "utf8", timeout: 60_000, env: { ...process.env, EVALKIT_HOME: work } },
    );
    expect(run.stderr).not.toContain("Maximum call stack");
    expect(run.status).toBe(0);
    const details = JSON.parse(run.stdout) as { ok: boolean; cells: { text: string }[] };
    expect(details.ok).toBe(true);
    expect(details.cells[0]?.text).toContain("after the display");
  }, 60_000);

  it("keeps `evalkit mcp` serving after the deep display", async () => {
    const server = await startServer();
    const first = await callEval(server.client, [{ code: DEEP_DISPLAY }]);
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toContain("after the display");
    const second = await callEval(server.client, [{ code: "print(6 * 7)" }]);
    expect(textOf(second)).toContain("42");
  }, 60_000);
});
