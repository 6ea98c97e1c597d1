// A bridge call is a value the cell sends and a value the embedder's handler returns: neither can throw in the
// host. A reply JSON cannot carry (a BigInt, a cycle) is a BridgeError in the cell; an argument nested 5,000 levels
// deep arrives cut at the bound, so echoing it back works.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-bridge-replies-"));
const tools: EvalTool[] = [];
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function makeTool(language: "py" | "js"): EvalTool {
  const cycle: Record<string, unknown> = { name: "loop" };
  cycle.self = cycle;
  const tool = createEvalTool({
    python: TEST_PYTHON,
    cwd: work,
    ...(language === "js" ? { py: false } : { js: false }),
    handlers: {
      tools: {
        bigint: () => ({ count: 10n }),
        cycle: () => cycle,
        echo: (params) => params,
        hostile: () => {
          throw 5n;
        },
      },
    },
  });
  tools.push(tool);
  return tool;
}

const PY_CALLS = `import sys
sys.setrecursionlimit(100000)
for name in ("bigint", "cycle", "hostile"):
    try:
        getattr(tool, name)()
        print(name, "returned")
    except Exception as exc:
        print(name, type(exc).__name__, str(exc)[:160])
deep = []
node = deep
for _ in range(5000):
    node.append([])
    node = node[0]
back = tool.echo(value=deep)["value"]
levels = 0
while isinstance(back, list) and back:
    back = back[0]
    levels += 1
print("echo levels", levels, "bottom", back)`;

describe("bridge replies the host cannot encode", () => {
  it("raises BridgeError in a Python cell for a BigInt, a cycle and a thrown BigInt, and echoes a 5,000-deep argument cut", async () => {
    const tool = makeTool("py");
    const result = await tool.execute({ cells: [{ code: PY_CALLS }, { code: "print('alive')" }] });
    const text = result.details.cells[0]?.text ?? "";
    expect(text).toMatch(/bigint BridgeError .*BigInt/);
    expect(text).toMatch(/cycle BridgeError .*(deeper than|refers to itself)/);
    expect(text).toMatch(/hostile BridgeError .*5/);
    expect(text).toMatch(/echo levels \d+ bottom \[evalkit: nested deeper than 100 levels, left out\]/);
    expect(result.details.cells.map((cell) => cell.status)).toEqual(["ok", "ok"]);
    expect(result.details.cells[1]?.text).toBe("alive\n");
  }, 60_000);

  it("rejects the call in a JS cell for a BigInt and a cycle, and the kernel keeps serving", async () => {
    const tool = makeTool("js");
    const code = `for (const name of ["bigint", "cycle"]) {
  try { await tool[name](); console.log(name, "returned"); }
  catch (err) { console.log(name, "failed:", String(err.message).slice(0, 120)); }
}`;
    const result = await tool.execute({
      cells: [
        { language: "js", code },
        { language: "js", code: "console.log('alive')" },
      ],
    });
    const text = result.details.cells[0]?.text ?? "";
    expect(text).toMatch(/bigint failed: .*BigInt/);
    expect(text).toMatch(/cycle failed: .*(deeper than|refers to itself)/);
    expect(result.details.cells[1]?.text).toBe("alive\n");
  }, 60_000);
});
