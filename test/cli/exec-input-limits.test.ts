// `evalkit exec` refuses inputs over 32 MiB (FILE, notebook, --input FILE, stdin, endless devices) with exit 2.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { MAX_EXEC_INPUT_BYTES } from "../../src/cli/input-limits.js";
import { captureIo } from "../tool/capture-io.js";

const dir = mkdtempSync(path.join(tmpdir(), "evalkit-exec-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const big = Buffer.alloc(MAX_EXEC_INPUT_BYTES + 1, "a");
const LIMIT_MESSAGE = /larger than the 32 MiB limit of one input/;

/** A stream that yields `total` bytes in 1 MiB chunks (and would go on if read past the limit). */
function flood(total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const size = Math.min(1024 * 1024, total - sent);
      sent += size;
      this.push(Buffer.alloc(size, "x"));
    },
  });
}

describe("evalkit exec input size limits", () => {
  it("is documented as 32 MiB", () => {
    expect(MAX_EXEC_INPUT_BYTES).toBe(32 * 1024 * 1024);
  });

  it.each([
    ["a FILE cell", "big.py", (file: string) => [file]],
    ["a notebook", "big.ipynb", (file: string) => [file]],
    ["--input FILE", "big.json", (file: string) => ["--input", file]],
  ])("refuses %s over the limit with one line and exit 2", async (_name, name, argv) => {
    const file = path.join(dir, name);
    writeFileSync(file, big);
    const io = captureIo();
    expect(await runExec(argv(file), io)).toBe(2);
    expect(io.err()).toMatch(LIMIT_MESSAGE);
    expect(io.err()).toContain(JSON.stringify(file));
    expect(io.out()).toBe("");
  });

  it.each([
    ["stdin as a cell (-)", ["-"]],
    ["--input -", ["--input", "-"]],
  ])("refuses %s over the limit without reading the rest", async (_name, argv) => {
    const io = captureIo();
    const stream = flood(10 * MAX_EXEC_INPUT_BYTES);
    io.stdin = stream;
    expect(await runExec(argv, io)).toBe(2);
    expect(io.err()).toMatch(LIMIT_MESSAGE);
    expect(io.err()).toContain("standard input");
    expect(stream.readableEnded).toBe(false);
  });

  it.skipIf(process.platform !== "linux")("stops reading an endless device such as /dev/zero", async () => {
    const io = captureIo();
    expect(await runExec(["/dev/zero"], io)).toBe(2);
    expect(io.err()).toMatch(LIMIT_MESSAGE);
  });
});
