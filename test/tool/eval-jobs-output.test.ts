// Jobs' output across returns, byte for byte: truncated stretches spilled to artifacts, stderr, partial lines, displays.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CellOutput } from "../../src/contracts/outputs.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";
import { cleanupTools, collectToEnd, makeTempDir, makeTool } from "./tool-helpers.js";

afterEach(cleanupTools);

/** Cell 0's outputs over all returns, in order. */
function outputsOf(returns: EvalToolResult[]): CellOutput[] {
  return returns.flatMap((r) => r.details.cells.filter((c) => c.index === 0).flatMap((c) => c.outputs));
}

/** The Python code printing `lines` numbered lines, with a partial line and a stderr line every 1000. */
function numberedPrinter(lines: number): string {
  return [
    "import sys, time",
    `for i in range(${lines}):`,
    "    sys.stdout.write('line %06d\\n' % i)",
    "    if i % 1000 == 0:",
    "        sys.stdout.write('half-')",
    "        sys.stdout.flush()",
    "        time.sleep(0.002)",
    "        sys.stdout.write('line\\n')",
    "        sys.stderr.write('err %d\\n' % i)",
  ].join("\n");
}

function expectedNumbered(lines: number): string {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    parts.push(`line ${String(i).padStart(6, "0")}\n`);
    if (i % 1000 === 0) parts.push(`half-line\nerr ${i}\n`);
  }
  return parts.join("");
}

describe("eval tool job output across returns", () => {
  it("adds up to exactly the cell's output when its stretches are truncated and spill to their own artifacts", async () => {
    const artifactsDir = makeTempDir("job-exact");
    const tool = makeTool({ js: false, artifactsDir });
    const lines = 300_000;
    const first = await tool.execute({
      cells: [{ code: numberedPrinter(lines), timeout: 300 }, { code: "print('second')" }],
      yieldAfter: 0.3,
    });
    expect(first.details.job?.state).toBe("running");
    const returns = await collectToEnd(tool, first, 0.4);
    expect(returns.at(-1)?.details.job?.state).toBe("done");
    let full = "";
    const artifacts = new Set<string>();
    for (const cell of returns.flatMap((r) => r.details.cells).filter((c) => c.index === 0)) {
      if (cell.truncated === undefined) {
        full += cell.text;
        continue;
      }
      // Each return's stretch has its own artifact, holding that stretch only.
      expect(artifacts.has(cell.truncated.artifact)).toBe(false);
      artifacts.add(cell.truncated.artifact);
      const file = path.join(artifactsDir, `${cell.truncated.artifact.replace("artifact://", "")}.out`);
      const stretch = readFileSync(file, "utf8");
      expect(Buffer.byteLength(stretch)).toBe(cell.truncated.totalBytes);
      full += stretch;
    }
    expect(artifacts.size).toBeGreaterThanOrEqual(1);
    // Compared as text, not by size: a repeated or lost stretch would show here.
    expect(full.length).toBe(expectedNumbered(lines).length);
    expect(full === expectedNumbered(lines)).toBe(true);
    // A return may also have caught the second cell running: its stretches add up the same way.
    const second = returns.flatMap((r) => r.details.cells).filter((c) => c.index === 1);
    expect(second.map((c) => c.text).join("")).toBe("second\n");
    expect(second.at(-1)?.status).toBe("ok");
  }, 120_000);

  it("redacts a secret printed across a return, in the text and in the outputs of both returns", async () => {
    const secret = "tok_9f8e7d6c5b4a39281706";
    const tool = makeTool({ js: false, env: { SERVICE_API_TOKEN: secret } });
    const code = [
      "import sys, time",
      `s = ${JSON.stringify(secret)}`,
      "sys.stdout.write('key=' + s[:10]); sys.stdout.flush()",
      "time.sleep(1.5)",
      "_ = sys.stdout.write(s[10:] + '\\n')",
    ].join("\n");
    const first = await tool.execute({ cells: [{ code }], yieldAfter: 0.7 });
    expect(first.details.job?.state).toBe("running");
    const returns = await collectToEnd(tool, first, 10);
    const texts = returns.map((r) => r.details.cells.map((c) => c.text).join("")).join("");
    const streams = outputsOf(returns)
      .map((o) => (o.type === "stream" ? o.text : ""))
      .join("");
    for (const joined of [texts, streams]) {
      expect(joined).toBe("key=[REDACTED:SERVICE_API_TOKEN]\n");
      expect(joined).not.toContain(secret.slice(0, 10));
    }
  }, 30_000);

  it("hands over each display, image and update once, in order, updates naming the display they replace", async () => {
    const tool = makeTool({ js: false });
    const code = [
      "import base64, time",
      "png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==')",
      "print('one', flush=True)",
      "display(Image(data=png))",
      "display(HTML('<b>progress 0</b>'), display_id='bar')",
      "time.sleep(1.5)",
      "update_display(HTML('<b>progress 50</b>'), display_id='bar')",
      "print('two', flush=True)",
      "time.sleep(1.5)",
      "print('three')",
      "42",
    ].join("\n");
    const first = await tool.execute({ cells: [{ code }], yieldAfter: 0.7 });
    expect(first.details.job?.state).toBe("running");
    // The image reached the model in the return that saw it, and in no other.
    expect(first.content.filter((b) => b.type === "image")).toHaveLength(1);
    const returns = await collectToEnd(tool, first, 1);
    expect(returns.length).toBeGreaterThanOrEqual(2);
    expect(returns.slice(1).flatMap((r) => r.content.filter((b) => b.type === "image"))).toHaveLength(0);
    const outputs = outputsOf(returns).map((o) => {
      if (o.type === "stream") return o.text;
      if (o.type === "display" || o.type === "result")
        return `${o.type}:${Object.keys(o.data).sort().join("+")}${o.displayId ? `#${o.displayId}` : ""}${o.update ? "!" : ""}`;
      return o.type;
    });
    // Streams may arrive in several pieces; joined between the rich outputs they read as printed.
    const joined: string[] = [];
    for (const item of outputs) {
      const isText = !/^(display|result):/.test(item);
      const previous = joined.at(-1);
      if (isText && previous !== undefined && !/^(display|result):/.test(previous))
        joined[joined.length - 1] = previous + item;
      else joined.push(item);
    }
    expect(joined).toEqual([
      "one\n",
      "display:image/png+text/plain",
      "display:text/html+text/plain#bar",
      "display:text/html+text/plain#bar!",
      "two\nthree\n",
      "result:text/plain",
    ]);
    expect(returns.at(-1)?.details.cells[0]?.status).toBe("ok");
  }, 60_000);
});
