// The eval tool's output handling on a real Python: bounded text with artifacts, memory, \r collapse, redaction.
import { afterEach, describe, expect, it } from "vitest";
import { MAX_READ_LIMIT, readArtifact } from "../../src/output/artifacts/artifact-read.js";
import { cleanupTools, makeTempDir, makeTool, textOf } from "./tool-helpers.js";

afterEach(cleanupTools);

/** Every byte of an artifact, page by page. */
async function readWhole(uri: string, dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const page = await readArtifact(uri, { dir, offset, limit: MAX_READ_LIMIT });
    parts.push(Buffer.from(page.bytes));
    if (page.nextOffset === null) return Buffer.concat(parts);
    offset = page.nextOffset;
  }
}

describe("eval tool output", () => {
  it("bounds 5 MB / 200k lines to head and tail and keeps the full output as a byte-identical artifact", async () => {
    const dir = makeTempDir("art5mb");
    const tool = makeTool({ artifactsDir: dir });
    const result = await tool.execute({
      cells: [{ code: "for i in range(200000):\n    print('line %06d ' % i + 'x' * 14)", timeout: 120 }],
    });
    const expected = Buffer.from(
      Array.from(
        { length: 200_000 },
        (_, i) => `line ${String(i).padStart(6, "0")} ${"x".repeat(14)}\n`,
      ).join(""),
    );
    expect(expected.length).toBeGreaterThan(5_000_000);
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(Buffer.byteLength(cell.text)).toBeLessThan(80 * 1024);
    expect(cell.text).toContain("line 000000 ");
    expect(cell.text).toContain("line 199999 ");
    expect(cell.truncated).toMatchObject({ totalBytes: expected.length, totalLines: 200_000 });
    const uri = cell.truncated!.artifact;
    expect(uri).toMatch(/^artifact:\/\/[A-Za-z0-9_-]+$/);
    expect(cell.text).toMatch(/… [\d,]+ lines \/ [\d,]+ bytes omitted; full output: artifact:\/\//);
    expect(textOf(result)).toContain(uri);
    expect((await readWhole(uri, dir)).equals(expected)).toBe(true);
    // details.outputs stays bounded too.
    const kept = cell.outputs.reduce((n, o) => n + (o.type === "stream" ? o.text.length : 0), 0);
    expect(kept).toBeLessThan(1.1 * 1024 * 1024);
  });

  it("keeps host memory growth under 64 MB while a cell prints 200 MB", async () => {
    const tool = makeTool();
    await tool.execute({ cells: [{ code: "import sys\nchunk = 'y' * 1023 + '\\n'" }] });
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      const result = await tool.execute({
        cells: [{ code: "for _ in range(200 * 1024):\n    sys.stdout.write(chunk)", timeout: 300 }],
      });
      const cell = result.details.cells[0]!;
      expect(cell.status).toBe("ok");
      expect(cell.truncated?.totalBytes).toBe(200 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const growthMb = (peak - baseline) / (1024 * 1024);
    console.log(`200 MB cell: host RSS growth ${growthMb.toFixed(1)} MB`);
    expect(growthMb).toBeLessThan(64);
  }, 300_000);

  it("collapses \\r progress rewrites to their final state", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [
        { code: "for i in range(101):\n    print('\\rprogress %d%%' % i, end='')\nprint()\nprint('after')" },
      ],
    });
    const text = result.details.cells[0]?.text ?? "";
    expect(text).toBe("progress 100%\nafter\n");
  });

  it("strips ANSI colour codes from the model's text", async () => {
    const tool = makeTool();
    const result = await tool.execute({ cells: [{ code: "print('\\x1b[31mred\\x1b[0m plain')" }] });
    expect(result.details.cells[0]?.text).toBe("red plain\n");
  });

  it("redacts secret host variables from text, details, errors and artifacts", async () => {
    const secret = "sk-evalkit-test-9f8e7d6c5b4a";
    const previous = process.env.EVALKIT_TEST_API_KEY;
    process.env.EVALKIT_TEST_API_KEY = secret;
    try {
      const dir = makeTempDir("artsecret");
      const tool = makeTool({ artifactsDir: dir });
      // The child never sees the variable (it is filtered out), so the cell prints the literal value.
      const result = await tool.execute({
        cells: [
          {
            code: [
              `s = "${secret}"`,
              "import sys",
              "print('key is', s)",
              "sys.stderr.write(s[:5]); sys.stderr.write(s[5:] + '\\n')",
              "display({'text/plain': 'shown ' + s, 'application/json': {'k': s}}, raw=True)",
              "for i in range(100000):\n    print('filler', i)",
              "print('end', s)",
            ].join("\n"),
          },
          { code: `raise ValueError("bad key ${secret}")` },
        ],
      });
      const serialized = JSON.stringify(result);
      expect(serialized).not.toContain(secret);
      expect(serialized).toContain("[REDACTED:EVALKIT_TEST_API_KEY]");
      const first = result.details.cells[0]!;
      expect(first.text).toContain("key is [REDACTED:EVALKIT_TEST_API_KEY]");
      expect(first.text).toContain("end [REDACTED:EVALKIT_TEST_API_KEY]");
      const stderr = first.outputs.find((o) => o.type === "stream" && o.name === "stderr");
      expect(stderr).toMatchObject({ text: "[REDACTED:EVALKIT_TEST_API_KEY]\n" });
      expect(result.details.cells[1]?.error?.evalue).toBe("bad key [REDACTED:EVALKIT_TEST_API_KEY]");
      const artifact = (await readWhole(first.truncated!.artifact, dir)).toString("utf8");
      expect(artifact).not.toContain(secret);
      expect(artifact).toContain("key is [REDACTED:EVALKIT_TEST_API_KEY]");
    } finally {
      if (previous === undefined) delete process.env.EVALKIT_TEST_API_KEY;
      else process.env.EVALKIT_TEST_API_KEY = previous;
    }
  });
});
