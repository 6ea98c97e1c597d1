import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOutputSink } from "../../../src/output/streams/output-sink.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-sink-mem-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function usedMemory(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

const CHUNK_BYTES = 64 * 1024;
const TOTAL_BYTES = 200 * 1024 * 1024;

describe("OutputSink memory", () => {
  it.each([
    ["plain lines", ("x".repeat(63) + "\n").repeat(CHUNK_BYTES / 64), []],
    [
      "coloured progress lines with a secret to redact",
      ("\x1b[32m50%\x1b[0m\r" + "y".repeat(50) + "\n").repeat(CHUNK_BYTES / 64),
      [{ name: "TOKEN", value: "tok-0123456789" }],
    ],
    ["one endless line", "z".repeat(CHUNK_BYTES), []],
  ] as const)(
    "keeps heap growth to a few MB while 200 MB of %s pass through",
    (_name, chunk, secrets) => {
      expect(chunk.length).toBe(CHUNK_BYTES);
      const sink = createOutputSink({ artifactDir: dir, secrets });
      gc();
      const before = usedMemory();
      let peak = 0;
      for (let pushed = 0, i = 0; pushed < TOTAL_BYTES; pushed += CHUNK_BYTES, i++) {
        sink.push(chunk);
        if (i % 256 === 0) {
          gc();
          peak = Math.max(peak, usedMemory() - before);
        }
      }
      const result = sink.finish();
      gc();
      peak = Math.max(peak, usedMemory() - before);
      expect(peak).toBeLessThan(8 * 1024 * 1024);
      expect(result.totalBytes).toBe(TOTAL_BYTES);
      expect(Buffer.byteLength(result.text)).toBeLessThan(80 * 1024);
      const artifactId = result.truncated!.artifact.slice("artifact://".length);
      expect(statSync(join(dir, `${artifactId}.out`)).size).toBe(TOTAL_BYTES);
    },
    120_000,
  );
});
