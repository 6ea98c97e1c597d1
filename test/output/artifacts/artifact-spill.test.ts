import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArtifactSpill, type ArtifactSpillOptions } from "../../../src/output/artifacts/artifact-spill.js";
import { type ArtifactStore, createArtifactStore } from "../../../src/output/artifacts/artifact-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-spill-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function spillOf(options: Partial<ArtifactSpillOptions> = {}, failure: string | null = null): ArtifactSpill {
  return new ArtifactSpill(
    {
      store: createArtifactStore({ dir }),
      artifactDir: undefined,
      thresholdBytes: 8,
      maxBytes: 1024,
      ...options,
    },
    failure,
  );
}

describe("ArtifactSpill", () => {
  it("makes no file while the bytes stay within the threshold", () => {
    const spill = spillOf();
    spill.write(Buffer.from("12345678"));
    expect(spill.uri).toBeNull();
    expect(spill.totalBytes).toBe(8);
    expect(spill.reference()).toBe("full output not saved");
    expect(spill.end(true)).toBeNull();
  });

  it("writes what it held once past the threshold, plain text included, and keeps the file when asked", () => {
    const spill = spillOf();
    spill.write(Buffer.from("hello "));
    spill.write(Buffer.from("wörld"));
    expect(spill.isOpen).toBe(true);
    spill.writePlain("!\n");
    const kept = spill.end(true);
    expect(kept?.uri).toBe(spill.uri);
    expect(readFileSync(kept!.path, "utf8")).toBe("hello wörld!\n");
    expect(kept?.bytesWritten).toBe(spill.totalBytes);
  });

  it("removes the file when the view lost nothing", () => {
    const spill = spillOf();
    spill.open();
    spill.write(Buffer.from("abc"));
    const path = join(dir, `${spill.uri!.slice("artifact://".length)}.out`);
    expect(existsSync(path)).toBe(true);
    expect(spill.end(false)).toBeNull();
    expect(existsSync(path)).toBe(false);
  });

  it("stores at most its cap and says so in its reference", () => {
    const spill = spillOf({ maxBytes: 5 });
    spill.write(Buffer.from("0123456789"));
    expect(spill.reference()).toBe(`first 5 bytes of the output: ${spill.uri}`);
    expect(spill.end(true)?.bytesWritten).toBe(5);
    expect(spill.totalBytes).toBe(10);
  });

  it("reports a store that cannot create the file, and keeps nothing", () => {
    const failing = {
      create: () => {
        throw new Error("disk full");
      },
    } as unknown as ArtifactStore;
    const spill = spillOf({ store: failing });
    spill.write(Buffer.from("0123456789"));
    expect(spill.error).toBe("disk full");
    expect(spill.reference()).toBe("full output could not be saved (disk full)");
    expect(spill.end(true)).toBeNull();
  });

  it("never opens when it starts with a failure", () => {
    const spill = spillOf({}, "cap used up");
    spill.write(Buffer.from("0123456789"));
    spill.open();
    expect(spill.uri).toBeNull();
    expect(spill.reference()).toBe("full output could not be saved (cap used up)");
  });
});
