import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ARTIFACT_BATCH_BYTES } from "../../../src/output/artifacts/artifact-batch.js";
import { createArtifactStore, readArtifact } from "../../../src/output/artifacts/artifact-store.js";
import {
  createOutputSink,
  emptySinkResult,
  type OutputSinkOptions,
} from "../../../src/output/streams/output-sink.js";
import { decodeRawBytes } from "../../../src/output/streams/raw-bytes.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-sink-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function pushAll(chunks: string[], options: OutputSinkOptions = {}) {
  const sink = createOutputSink({ artifactDir: dir, ...options });
  for (const chunk of chunks) sink.push(chunk);
  return sink.finish();
}

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function readWhole(uri: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await readArtifact(uri, { dir, offset, limit: 4 * 1024 * 1024 });
    parts.push(Buffer.from(page.bytes));
    offset = page.nextOffset;
  }
  return Buffer.concat(parts);
}

describe("OutputSink", () => {
  it("passes small output through unchanged and creates no artifact", () => {
    const result = pushAll(["hello\n", "world\n"]);
    expect(result).toMatchObject({ text: "hello\nworld\n", totalBytes: 12, totalLines: 2, omittedLines: 0 });
    expect(result.truncated).toBeUndefined();
    expect(readdirSync(dir).filter((name) => name.endsWith(".out"))).toEqual([]);
  });

  it("gives the same view, counts and artifact when plain chunks are marked as plain", async () => {
    const plain = fc.constantFrom(
      "a",
      "bc ",
      "\n",
      "\t",
      "x".repeat(30),
      "line\n".repeat(5),
      "sk-secret-123",
    );
    const other = fc.constantFrom("\r", "\x1b[1m", "é", "😀", "\u0007");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(plain, plain, other), { maxLength: 40 }), async (chunks) => {
        const options: OutputSinkOptions = {
          headBytes: 40,
          tailBytes: 60,
          maxLineChars: 25,
          secrets: [{ name: "KEY", value: "sk-secret-123" }],
        };
        const marked = createOutputSink({ artifactDir: dir, ...options });
        for (const chunk of chunks) marked.push(chunk, /^[\t\n\x20-\x7e]*$/.test(chunk));
        const a = marked.finish();
        const b = pushAll(chunks, options);
        const normal = (r: typeof a) => ({
          ...r,
          truncated: undefined,
          text: r.text.replace(/artifact:\/\/\S+/g, "ID"),
        });
        expect(normal(a)).toEqual(normal(b));
        if (a.truncated && b.truncated) {
          expect((await readWhole(a.truncated.artifact)).equals(await readWhole(b.truncated.artifact))).toBe(
            true,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("counts an unterminated last line and keeps the text without a trailing newline", () => {
    const result = pushAll(["a\nb"]);
    expect(result).toMatchObject({ text: "a\nb", totalLines: 2, totalBytes: 3 });
  });

  it("bounds 200k lines (about 5 MB) to a head, a notice and a tail, with an artifact that reads back byte-identical", async () => {
    const full = Array.from(
      { length: 200_000 },
      (_, i) => `line ${String(i).padStart(6, "0")} ${"=".repeat(13)}\n`,
    ).join("");
    const result = pushAll(chunked(full, 65_536));
    const bytes = Buffer.byteLength(full);
    expect(bytes).toBeGreaterThan(5_000_000);
    expect(Buffer.byteLength(result.text)).toBeLessThan(75 * 1024);
    const lines = result.text.split("\n");
    expect(lines[0]).toBe("line 000000 =============");
    expect(lines.at(-2)).toBe("line 199999 =============");
    const notice = lines.find((line) => line.startsWith("… "));
    expect(notice).toMatch(/^… \d+ lines \/ \d+ bytes omitted; full output: artifact:\/\/[A-Za-z0-9_-]+$/);
    expect(notice).toContain(result.truncated?.artifact);
    expect(result.truncated).toMatchObject({ totalBytes: bytes, totalLines: 200_000 });
    // Every line is either shown or counted as omitted.
    expect(lines.length - 2 + result.omittedLines).toBe(200_000);
    const artifact = await readWhole(result.truncated!.artifact);
    expect(artifact.equals(Buffer.from(full))).toBe(true);
  });

  it("stores undecodable bytes raw in the artifact and shows them as U+FFFD to the model", async () => {
    const raw = Buffer.concat([
      Buffer.from("bin: "),
      Buffer.from([0x80, 0xfe, 0xff, 0xc3]),
      Buffer.from(" é\n"),
    ]);
    const text = decodeRawBytes(raw);
    const result = pushAll([text.repeat(5000)], { headBytes: 1000, tailBytes: 1000 });
    expect(result.text.startsWith("bin: \ufffd\ufffd\ufffd\ufffd é\n")).toBe(true);
    const artifact = await readWhole(result.truncated!.artifact);
    expect(artifact.equals(Buffer.concat(Array(5000).fill(raw)))).toBe(true);
    expect(result.totalBytes).toBe(raw.length * 5000);
  });

  it("collapses progress bars split across chunks in the view but keeps every frame in the artifact", async () => {
    const frames = Array.from({ length: 3000 }, (_, i) => `\rprogress ${i + 1}/3000`).join("");
    const full = `start\n${frames}\ndone\n`;
    const result = pushAll(chunked(full, 7), { spillThresholdBytes: 100 });
    expect(result.text).toBe("start\nprogress 3000/3000\ndone\n");
    expect(result.truncated).toBeUndefined();
    expect(readdirSync(dir).filter((name) => name.endsWith(".out"))).toEqual([]);
    const raw = pushAll(chunked(full, 7), { headBytes: 8, tailBytes: 8 });
    expect((await readWhole(raw.truncated!.artifact)).toString()).toBe(full);
  });

  it("strips ANSI colours from the view but keeps them in the artifact", async () => {
    const line = "\x1b[32mPASSED\x1b[0m test\n";
    const result = pushAll([line.repeat(2000)], { headBytes: 100, tailBytes: 100 });
    expect(result.text.startsWith("PASSED test\n")).toBe(true);
    expect(result.text).not.toContain("\x1b");
    expect((await readWhole(result.truncated!.artifact)).toString()).toBe(line.repeat(2000));
  });

  it("redacts secrets, even split across chunks, in both the view and the artifact", async () => {
    const secrets = [{ name: "OPENAI_API_KEY", value: "sk-proj-abcdef0123456789" }];
    const full = `key=sk-proj-abcdef0123456789\n${"filler\n".repeat(20_000)}again sk-proj-abcdef0123456789\n`;
    const result = pushAll(chunked(full, 5), { secrets });
    expect(result.text).toContain("key=[REDACTED:OPENAI_API_KEY]");
    expect(result.text).toContain("again [REDACTED:OPENAI_API_KEY]");
    expect(result.text).not.toContain("abcdef0123456789");
    const artifact = (await readWhole(result.truncated!.artifact)).toString();
    expect(artifact).not.toContain("abcdef0123456789");
    expect(artifact.split("[REDACTED:OPENAI_API_KEY]").length).toBe(3);
    expect(result.totalBytes).toBe(Buffer.byteLength(artifact));
  });

  it("clamps very long lines, says so, and keeps the full line in the artifact", async () => {
    const long = "y".repeat(10_000);
    const result = pushAll([`short\n${long}\nend\n`], { maxLineChars: 4000 });
    const lines = result.text.split("\n");
    expect(lines[1]).toBe(`${"y".repeat(4000)}…[+6000 chars]`);
    expect(lines[3]).toMatch(/^… 1 long line clamped; full output: artifact:\/\//);
    expect(result.clampedLines).toBe(1);
    expect((await readWhole(result.truncated!.artifact)).toString()).toBe(`short\n${long}\nend\n`);
  });

  it("caps the artifact size and says the artifact holds only the first bytes", async () => {
    const result = pushAll(["z".repeat(99) + "\n"].concat(Array(1000).fill("z".repeat(99) + "\n")), {
      headBytes: 200,
      tailBytes: 200,
      maxArtifactBytes: 5000,
    });
    expect(result.totalBytes).toBe(100_100);
    expect(result.artifactBytes).toBe(5000);
    expect(result.text).toContain(`first 5000 bytes of the output: ${result.truncated!.artifact}`);
    expect((await readWhole(result.truncated!.artifact)).length).toBe(5000);
  });

  it("stores plain, non-ASCII and batch-sized chunks byte for byte up to the cap", async () => {
    const chunks = [
      ...Array.from({ length: 500 }, (_, i) => `plain ${i}\n`),
      "é and € are not plain\n",
      `${"p".repeat(300_000)}\n`,
      ...Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? `wide ${i} é\n` : `narrow ${i}\n`)),
    ];
    const sink = createOutputSink({
      artifactDir: dir,
      headBytes: 300,
      tailBytes: 300,
      maxArtifactBytes: 400_000,
    });
    for (const chunk of chunks) sink.push(chunk, /^[\t\n\x20-\x7e]*$/.test(chunk));
    const result = sink.finish();
    const whole = Buffer.from(chunks.join(""), "utf8");
    expect(result.totalBytes).toBe(whole.length);
    expect(result.artifactBytes).toBe(400_000);
    expect((await readWhole(result.truncated!.artifact)).equals(whole.subarray(0, 400_000))).toBe(true);
  });

  it("caps a cell's artifacts over all of a job's returns as it caps one artifact", async () => {
    const options = { artifactDir: dir, headBytes: 200, tailBytes: 200, maxArtifactBytes: 5000 };
    const lines = Array(30).fill(`${"z".repeat(99)}\n`);
    let sink = createOutputSink(options);
    const results = [];
    for (let stretch = 0; stretch < 3; stretch++) {
      for (const line of lines) sink.push(line);
      const { result, next } = sink.cut();
      results.push(result);
      sink = next;
    }
    for (const line of lines) sink.push(line);
    results.push(sink.finish());
    // 3000 bytes each: the first stretch whole, the second up to the cap, then nothing more on disk.
    expect(results.map((r) => r.totalBytes)).toEqual([3000, 3000, 3000, 3000]);
    expect(results.map((r) => r.artifactBytes)).toEqual([3000, 2000, undefined, undefined]);
    expect(results[1]?.text).toContain(`first 2000 bytes of the output: ${results[1]?.truncated?.artifact}`);
    expect((await readWhole(results[1]!.truncated!.artifact)).length).toBe(2000);
    for (const late of results.slice(2)) {
      expect(late.truncated).toBeUndefined();
      expect(late.artifactError).toContain("already saved 5000 bytes");
      expect(late.text).toContain("full output could not be saved");
    }
  });

  it("keeps working when the artifact cannot be written, and says so", () => {
    const notADir = join(dir, "file");
    writeFileSync(notADir, "");
    const sink = createOutputSink({ artifactDir: notADir, headBytes: 50, tailBytes: 50 });
    for (let i = 0; i < 100; i++) sink.push(`line ${i}\n`);
    const result = sink.finish();
    expect(result.truncated).toBeUndefined();
    expect(result.artifactError).toBeTruthy();
    expect(result.text).toContain("full output could not be saved");
    expect(result.text).toContain("line 99\n");
  });

  it("says so in the view when the artifact's last batched write fails", () => {
    const real = createArtifactStore({ dir });
    const store = {
      ...real,
      create: () => {
        const writer = real.create();
        return {
          ...writer,
          write: () => {
            throw new Error("ENOSPC: no space left on device");
          },
          close: () => writer.close(),
          discard: () => writer.discard(),
        };
      },
    };
    const sink = createOutputSink({ store, headBytes: 50, tailBytes: 50 });
    for (let i = 0; i < 100; i++) sink.push(`line ${i}\n`);
    const result = sink.finish();
    expect(result.truncated).toBeUndefined();
    expect(result.artifactError).toContain("ENOSPC");
    expect(result.text).toContain("full output could not be saved (ENOSPC");
  });

  it("shows the current view in a snapshot while the stream is still open", () => {
    const sink = createOutputSink({ artifactDir: dir });
    sink.push("first\nsecond par");
    expect(sink.snapshot()).toBe("first\nsecond par");
    sink.push("t\r50%");
    expect(sink.snapshot()).toBe("first\n50%");
    expect(sink.finish().text).toBe("first\n50%");
  });

  it("writes the artifact as output arrives, holding at most one batch in memory", () => {
    const sink = createOutputSink({ artifactDir: dir, headBytes: 100, tailBytes: 100 });
    const rows = Array.from({ length: 100_000 }, (_, i) => `row ${i}\n`);
    for (const row of rows) sink.push(row, true);
    const uri = sink.artifactUri;
    expect(uri).toMatch(/^artifact:\/\//);
    const path = join(dir, `${uri!.slice("artifact://".length)}.out`);
    const expected = rows.join("");
    const whileRunning = readFileSync(path, "utf8");
    expect(expected.startsWith(whileRunning)).toBe(true);
    expect(expected.length - whileRunning.length).toBeLessThanOrEqual(ARTIFACT_BATCH_BYTES);
    expect(whileRunning.length).toBeGreaterThan(expected.length / 2);
    const result = sink.finish();
    expect(readFileSync(path, "utf8")).toBe(expected);
    expect(result.artifactBytes).toBe(expected.length);
  });
});

describe("a cell without output", () => {
  it("gets from emptySinkResult() exactly what a sink that took no text finishes with", () => {
    const secrets = [{ name: "TOKEN", value: "sk-secret-value" }];
    for (const options of [
      {},
      { headBytes: 10, tailBytes: 10 },
      { secrets },
      { keepAnsi: true, maxLineChars: 5 },
    ]) {
      expect(pushAll([], options)).toEqual(emptySinkResult());
      expect(pushAll([""], options)).toEqual(emptySinkResult());
      // Same keys in the same order: details are serialised as they are.
      expect(Object.keys(pushAll([], options))).toEqual(Object.keys(emptySinkResult()));
    }
    expect(createOutputSink({}).snapshot()).toBe("");
  });
});
