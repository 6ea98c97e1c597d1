// makeDirectory: mkdir -p that makes every missing level, keeps what exists, and fails at once instead of spinning.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeDirectory } from "../../../src/output/artifacts/make-directory.js";

const root = mkdtempSync(join(tmpdir(), "evalkit-mkdir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("makeDirectory", () => {
  it("creates every missing level with the mode asked for, and accepts a directory that exists", () => {
    const deep = join(root, "a", "b", "c");
    makeDirectory(deep, 0o700);
    for (const dir of [join(root, "a"), join(root, "a", "b"), deep]) {
      expect(statSync(dir).isDirectory()).toBe(true);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    expect(() => makeDirectory(deep)).not.toThrow();
    expect(() => makeDirectory(root)).not.toThrow();
  });

  it("throws when a file is in the way, at the end or in the middle", () => {
    const file = join(root, "file");
    writeFileSync(file, "x");
    expect(() => makeDirectory(file)).toThrow(/EEXIST/);
    expect(() => makeDirectory(join(file, "below"))).toThrow(/ENOTDIR/);
  });

  it.skipIf(process.platform !== "linux")(
    "fails with ENOENT under /proc, where Node's recursive mkdir spins forever",
    () => {
      const started = Date.now();
      expect(() => makeDirectory("/proc/1/evalkit-nope/deeper")).toThrow(/ENOENT/);
      expect(Date.now() - started).toBeLessThan(1000);
    },
  );
});
