// A JS cell can read its stream-sync nonce and write a marker for an epoch that never comes. The host must not
// hold what follows: it stays bounded, and the cell's output after the forged marker is kept like any other
// (in its text, its details and, past the text budget, its artifact).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ARTIFACT_SUFFIX } from "../../src/output/artifacts/artifact-scan.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-markers-"));
const artifactsDir = path.join(work, "artifacts");
const tools: EvalTool[] = [];
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function makeTool(): EvalTool {
  const tool = createEvalTool({ cwd: work, py: false, artifactsDir });
  tools.push(tool);
  return tool;
}

/** The marker the runner writes, with the nonce the cell finds in its own argv and an epoch that never comes. */
const FORGE = `const nonce = process.argv.find((arg) => /^[0-9a-f]{16}$/.test(arg)) ?? process.argv[2];
process.stdout.write("\\x1b]evalkit-sync;" + nonce + ";999999999\\x07");`;

describe("forged stream markers", () => {
  it("keeps a short print after a forged marker in the same cell", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [
        { language: "js", code: `${FORGE}\nconsole.log("after the forged marker");` },
        { language: "js", code: `console.log("next cell");` },
      ],
    });
    expect(result.details.cells[0]?.text).toContain("after the forged marker");
    expect(result.details.cells[1]?.text).toBe("next cell\n");
  }, 30_000);

  it("keeps 8 MB printed after a forged marker, in the cell's text and its artifact", async () => {
    const tool = makeTool();
    const code = `${FORGE}
const line = "x".repeat(1000);
for (let i = 0; i < 8000; i++) console.log(i + " " + line);
console.log("the end");`;
    const result = await tool.execute({ cells: [{ language: "js", code }] });
    const cell = result.details.cells[0];
    expect(cell?.status).toBe("ok");
    expect(cell?.text).toContain("the end");
    const artifact = cell?.truncated?.artifact;
    expect(artifact).toBeDefined();
    const id = (artifact ?? "").replace("artifact://", "");
    const files = readFileSync(path.join(artifactsDir, `${id}${ARTIFACT_SUFFIX}`), "utf8");
    expect(files).toContain(`7999 ${"x".repeat(1000)}`);
    expect(files).toContain("the end");
  }, 60_000);
});
