// Values of any size: a trailing expression or exception whose text is tens of MB never breaks the protocol's
// line bound; the frame is capped with a marker, the full text reaches the artifact, the kernel keeps its state.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CellResult } from "../../src/contracts/cell-result.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { tailOf } from "../helpers/file-tail.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-chaos-values-"));
const artifactsDir = path.join(work, "artifacts");
const tools: EvalTool[] = [];

afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function artifactFile(cell: CellResult): string {
  const uri = cell.truncated?.artifact;
  if (!uri) throw new Error(`cell has no artifact: ${JSON.stringify(cell).slice(0, 500)}`);
  return path.join(artifactsDir, `${uri.replace("artifact://", "")}.out`);
}

const CASES = [
  {
    what: "bytes whose repr is 60 M characters",
    code: "b'\\xff' * 15_000_000",
    status: "ok",
    chars: 60_000_003,
    ending: "\\xff\\xff'",
  },
  {
    // (a long list of small items is cut at 1000 items by the pretty printer, as in IPython: long items it keeps)
    what: "a list whose pretty form is 70 M characters",
    code: "['ab' * 5_000_000] * 7",
    status: "ok",
    chars: 70_000_034,
    ending: "ababab']",
  },
  {
    what: "a non-ASCII string that grows six-fold when JSON-escaped",
    code: "'é' * 12_000_000",
    status: "ok",
    chars: 12_000_002,
    ending: "ééé'",
  },
  {
    what: "an exception whose message is 12 M non-ASCII characters",
    code: "raise ValueError('ü' * 12_000_000 + ' the end')",
    status: "error",
    chars: 12_000_008,
    ending: "üüü the end",
  },
] as const;

describe("chaos: values of any size", () => {
  it.each(CASES)(
    "caps $what with a marker, keeps the full text in the artifact, and the kernel lives",
    async ({ code, status, chars, ending }) => {
      const tool = createEvalTool({ python: TEST_PYTHON, artifactsDir, cwd: work, js: false });
      tools.push(tool);
      const first = await tool.execute({ cells: [{ code: "import os\nkept = 42\nos.getpid()" }] });
      const pid = first.details.cells[0]!.text.trim();
      const started = Date.now();
      const result = await tool.execute({ cells: [{ code, timeout: 120 }] });
      const cell = result.details.cells[0]!;
      expect(Date.now() - started).toBeLessThan(100_000);
      expect(cell.status).toBe(status);
      // No word of a dead kernel or a broken protocol; only that the spilled stream lives in the artifact.
      expect((cell.notices ?? []).join("\n")).not.toMatch(/died|restarted|protocol|state was lost/);
      // The frame was capped where the model and details.outputs see it...
      // (the host clamps an error's text in details on its own, so there the spilled stderr is what is checked)
      const capped = JSON.stringify(cell.outputs);
      const marker = status === "ok" ? "characters left out here" : "evalkit: full traceback (12,000,";
      expect(capped.includes(marker)).toBe(true);
      expect(capped.length).toBeLessThan(20 * 1024 * 1024);
      if (status === "error") expect(cell.error?.ename).toBe("ValueError");
      // ...and the full text is in the artifact, end included.
      const file = artifactFile(cell);
      expect(statSync(file).size).toBeGreaterThanOrEqual(chars);
      expect(tailOf(file, 64 * 1024)).toContain(ending);
      const after = await tool.execute({ cells: [{ code: "import os\n(kept, os.getpid())" }] });
      expect(after.details.cells[0]!.text.trim()).toBe(`(42, ${pid})`);
      console.log(`${code}: ${Date.now() - started} ms`);
    },
    150_000,
  );
});
