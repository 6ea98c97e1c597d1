// Output torture through the eval tool: 200 MB, a 10 MB line, NUL bytes, invalid UTF-8, lone surrogates and
// ANSI storms give valid results with bounded host memory, and artifacts equal to what the cell wrote.
import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CellResult } from "../../src/contracts/cell-result.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-chaos-output-"));
const artifactsDir = path.join(work, "artifacts");
const tools: EvalTool[] = [];

function makeTool(): EvalTool {
  const tool = createEvalTool({ python: TEST_PYTHON, artifactsDir, cwd: work, js: false });
  tools.push(tool);
  return tool;
}

afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}

function artifactPath(cell: CellResult): string {
  const uri = cell.truncated?.artifact;
  if (!uri) throw new Error(`cell has no artifact: ${JSON.stringify(cell).slice(0, 500)}`);
  return path.join(artifactsDir, `${uri.replace("artifact://", "")}.out`);
}

/** The model's view must be well-formed text: no lone surrogates, no NUL, no raw escape sequences. */
function expectCleanText(text: string) {
  expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)).toBe(false);
  expect(text.includes("\0")).toBe(false);
  expect(text.includes("\x1b")).toBe(false);
}

/** Byte equality with a readable failure: sizes and the first differing offset. */
function expectSameBytes(actual: Buffer, expected: Buffer) {
  if (actual.equals(expected)) return;
  let offset = 0;
  while (offset < actual.length && offset < expected.length && actual[offset] === expected[offset]) offset++;
  expect({
    actualBytes: actual.length,
    expectedBytes: expected.length,
    firstDifferenceAt: offset,
    actual: actual.subarray(offset, offset + 40).toString("latin1"),
    expected: expected.subarray(offset, offset + 40).toString("latin1"),
  }).toEqual({ equal: true });
}

/** Python that writes `produce()`'s chunks (bytes) to fd 1 and to `file`, for a byte-exact comparison. */
function mirroredCell(file: string, produce: string): string {
  return [
    "import os, sys",
    produce,
    `with open(${JSON.stringify(file)}, "wb") as copy:`,
    "    for chunk in produce():",
    "        copy.write(chunk)",
    "        view = memoryview(chunk)",
    "        while view:",
    "            view = view[os.write(1, view):]",
  ].join("\n");
}

describe("chaos: output torture through the eval tool", () => {
  it("prints 200 MB with host memory growth under 64 MB and an artifact identical to what was written", async () => {
    const tool = makeTool();
    await tool.execute({ cells: [{ code: "1" }] });
    const file = path.join(work, "200mb.txt");
    const produce = [
      "def produce():",
      "    block = b''.join(b'line %07d of the torture test, with some padding to fill it\\n' % i for i in range(16384))",
      "    total = 0",
      "    while total < 200 * 1024 * 1024:",
      "        yield block",
      "        total += len(block)",
    ].join("\n");
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = Date.now();
    const result = await tool.execute({ cells: [{ code: mirroredCell(file, produce), timeout: 120 }] });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    const size = readFileSync(file).length;
    expect(size).toBeGreaterThanOrEqual(200 * 1024 * 1024);
    expect(cell.truncated?.totalBytes).toBe(size);
    expect(await sha256File(artifactPath(cell))).toBe(await sha256File(file));
    expect(cell.text.length).toBeLessThan(100 * 1024);
    console.log(
      `200 MB: ${Date.now() - started} ms, host RSS growth ${((peak - before) / 1048576).toFixed(1)} MB`,
    );
  }, 120_000);

  it("carries a 10 MB single line into the artifact byte for byte and clamps it in the view", async () => {
    const tool = makeTool();
    const file = path.join(work, "10mb-line.txt");
    const produce = [
      "def produce():",
      "    for i in range(10):",
      "        yield (b'%d' % i) * (1024 * 1024)",
      "    yield b'\\n'",
    ].join("\n");
    const result = await tool.execute({ cells: [{ code: mirroredCell(file, produce), timeout: 60 }] });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expectSameBytes(readFileSync(artifactPath(cell)), readFileSync(file));
    expect(cell.text).toMatch(/…\[\+\d+ chars\]/);
    expect(cell.text.length).toBeLessThan(100 * 1024);
  });

  it("keeps NUL bytes, invalid UTF-8 and ANSI storms byte for byte in the artifact and clean in the view", async () => {
    const tool = makeTool();
    const file = path.join(work, "binary.txt");
    const produce = [
      "import random",
      "def produce():",
      "    rng = random.Random(7)",
      "    pieces = [b'\\x00', b'\\xff\\xfe', b'\\x80', b'\\xc3', b'\\xe2\\x82', b'\\xf0\\x9f\\x98', b'\\xed\\xa0\\x80',",
      "              b'\\x1b[31m', b'\\x1b[0m', b'\\x1b[2K\\r', b'\\x1b]0;title\\x07', b'\\x1b[38;5;196m', b'\\x1b[',",
      "              b'\\r', b'\\n', b'plain text ', 'caf\\u00e9 \\U0001F600 '.encode('utf-8'), b'\\x07\\x08\\x7f']",
      "    for _ in range(40):",
      "        yield b''.join(rng.choice(pieces) for _ in range(2000)) + b'\\n'",
    ].join("\n");
    const result = await tool.execute({ cells: [{ code: mirroredCell(file, produce), timeout: 60 }] });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expectSameBytes(readFileSync(artifactPath(cell)), readFileSync(file));
    expectCleanText(cell.text);
    expect(JSON.parse(JSON.stringify(result.details)).ok).toBe(true);
  });

  it("gives a valid result for lone surrogates printed as text, in the view and the artifact", async () => {
    const tool = makeTool();
    const code = [
      "import sys",
      "for i in range(3000):",
      "    print('row %d: a\\ud800b\\udcffc\\udfff d \\U0001F600' % i)",
      "sys.stderr.write('err \\udc80\\n')",
      "'\\ud83d'",
    ].join("\n");
    const result = await tool.execute({ cells: [{ code, timeout: 60 }] });
    const cell = result.details.cells[0]!;
    expect(["ok", "error"]).toContain(cell.status);
    expectCleanText(cell.text);
    expect(cell.text).toContain("row 2999: a");
    expect(cell.text).toContain("\u{1F600}");
    if (cell.truncated) {
      const artifact = readFileSync(artifactPath(cell));
      expect(artifact.includes(Buffer.from("row 0: a"))).toBe(true);
    }
    const next = await tool.execute({ cells: [{ code: "print('still fine')" }] });
    expect(next.details.cells[0]?.text).toBe("still fine\n");
  });
});
