// Values of any size in JS cells: a result, display or error whose text is tens of MB never breaks the protocol's
// line bound (it used to end the kernel); the frame is capped with a marker, full text reaches the artifact when
// there is one, and the kernel keeps its state.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { tailOf } from "../helpers/file-tail.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-chaos-js-values-"));
const artifactsDir = path.join(work, "artifacts");
const tools: EvalTool[] = [];

afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CASES = [
  {
    what: "an error whose message is 15 M control characters (90 MB once JSON-escaped)",
    code: "throw new RangeError('\\u0002'.repeat(15_000_000) + ' the end')",
    status: "error",
    marker: "evalkit: full error (15,000,",
    ending: "\u0002\u0002 the end",
  },
  {
    what: "a display whose text is 12 M non-ASCII characters",
    code: "display('é'.repeat(12_000_000) + ' the end')",
    status: "ok",
    marker: "characters left out here",
    ending: "ééé the end",
  },
  {
    what: "a result whose JSON form is 70 MB",
    code: "[ 'x'.repeat(70_000_000) ]",
    status: "ok",
    marker: "a result frame of 70,0",
    ending: undefined,
  },
  {
    what: "a 50 MB image",
    code: "display({ 'image/png': 'A'.repeat(50_000_000), 'text/plain': 'img' }, { raw: true })",
    status: "ok",
    marker: "this image/png value of 50,000,000 bytes was dropped",
    ending: undefined,
  },
] as const;

describe("chaos: JS values of any size", () => {
  it.each(CASES)(
    "caps $what with a marker, and the kernel lives",
    async ({ code, status, marker, ending }) => {
      const tool = createEvalTool({ python: TEST_PYTHON, artifactsDir, cwd: work });
      tools.push(tool);
      const first = await tool.execute({
        cells: [{ language: "js", code: "globalThis.kept = 42; process.pid" }],
      });
      const pid = first.details.cells[0]!.text.trim();
      const started = Date.now();
      const result = await tool.execute({ cells: [{ language: "js", code, timeout: 120 }] });
      const cell = result.details.cells[0]!;
      expect(Date.now() - started).toBeLessThan(100_000);
      expect(cell.status).toBe(status);
      expect((cell.notices ?? []).join("\n")).not.toMatch(/died|restarted|protocol|state was lost/);
      const outputs = JSON.stringify(cell.outputs);
      expect(outputs.includes(marker)).toBe(true);
      expect(outputs.length).toBeLessThan(20 * 1024 * 1024);
      if (status === "error") expect(cell.error?.ename).toBe("RangeError");
      if (ending !== undefined) {
        const uri = cell.truncated?.artifact;
        expect(uri).toBeDefined();
        const file = path.join(artifactsDir, `${uri!.replace("artifact://", "")}.out`);
        expect(tailOf(file, 64 * 1024)).toContain(ending);
      }
      const after = await tool.execute({
        cells: [{ language: "js", code: "[kept, process.pid].join(' ')" }],
      });
      expect(after.details.cells[0]!.text.trim()).toBe(`'42 ${pid}'`);
      console.log(`${code.slice(0, 40)}: ${Date.now() - started} ms`);
    },
    150_000,
  );
});
