// `evalkit artifact ID`: prints a stored output byte for byte, whole or by --offset/--limit; clear errors.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runArtifact } from "../../src/cli/artifact.js";
import { createArtifactStore } from "../../src/output/artifacts/artifact-store.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools, makeTempDir } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

function storeArtifact(bytes: Buffer): { id: string; uri: string; dir: string } {
  const dir = makeTempDir("cli-art");
  const writer = createArtifactStore({ dir }).create();
  writer.write(bytes);
  writer.close();
  return { id: writer.id, uri: writer.uri, dir };
}

describe("evalkit artifact", () => {
  it("prints the whole artifact byte for byte, also past one read page and with invalid UTF-8", async () => {
    const bytes = Buffer.concat([
      Buffer.from("héllo\n"),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.alloc(17 * 1024 * 1024, 0x61),
    ]);
    const { uri, dir } = storeArtifact(bytes);
    const io = captureIo();
    expect(await runArtifact([uri, "--dir", dir], io)).toBe(0);
    expect(io.outBytes().equals(bytes)).toBe(true);
  });

  it("prints a byte range with --offset and --limit, and the end with a negative offset", async () => {
    const { id, dir } = storeArtifact(Buffer.from("0123456789"));
    const range = captureIo();
    expect(await runArtifact([id, "--dir", dir, "--offset", "2", "--limit", "3"], range)).toBe(0);
    expect(range.out()).toBe("234");
    const tail = captureIo();
    expect(await runArtifact([id, "--dir", dir, "--offset=-4"], tail)).toBe(0);
    expect(tail.out()).toBe("6789");
  });

  it("reads an id that starts with '-' after -- or as artifact://, and names an unknown option clearly", async () => {
    // Ids made before they stopped starting with '-' are still on disk.
    const dir = makeTempDir("cli-art-dash");
    writeFileSync(join(dir, "-LU3RLOsyZCw.out"), "dashed");
    for (const argv of [
      ["--dir", dir, "--", "-LU3RLOsyZCw"],
      ["artifact://-LU3RLOsyZCw", "--dir", dir],
    ]) {
      const io = captureIo();
      expect(await runArtifact(argv, io), argv.join(" ")).toBe(0);
      expect(io.out()).toBe("dashed");
    }
    const bare = captureIo();
    expect(await runArtifact(["-LU3RLOsyZCw", "--dir", dir], bare)).toBe(2);
    expect(bare.err()).toBe("evalkit artifact: unknown option -L; see evalkit artifact --help\n");
  });

  it("exits 1 with one line for an unknown id and 2 for bad usage", async () => {
    const { dir } = storeArtifact(Buffer.from("x"));
    const missing = captureIo();
    expect(await runArtifact(["AAAAAAAAAAAA", "--dir", dir], missing)).toBe(1);
    expect(missing.err()).toMatch(/^evalkit artifact: artifact AAAAAAAAAAAA not found/);
    for (const argv of [[], ["a", "b"], ["../etc/passwd"], ["abc", "--limit", "x"], ["abc", "--bogus"]]) {
      const io = captureIo();
      expect(await runArtifact(argv, io), argv.join(" ")).toBe(2);
      expect(io.err()).toMatch(/^evalkit artifact: /);
    }
  });
});
