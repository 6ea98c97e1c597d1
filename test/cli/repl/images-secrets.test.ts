// The REPL's saved images: an SVG is text, so a secret of the host's environment written into one is redacted in
// the file (binary formats are written as they came).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ImageOutput } from "../../../src/cli/repl/images.js";

const dir = mkdtempSync(path.join(tmpdir(), "evalkit-repl-images-"));
afterAll(() => {
  delete process.env.REPL_IMAGE_TEST_TOKEN;
  rmSync(dir, { recursive: true, force: true });
});

describe("ImageOutput and secrets", () => {
  it("redacts a secret of the environment in a saved SVG file", () => {
    const secret = "repl-svg-token-Kk83js";
    process.env.REPL_IMAGE_TEST_TOKEN = secret;
    const images = new ImageOutput({ protocol: undefined, dir });
    const shown = images.show("image/svg+xml", `<svg><text>${secret}</text></svg>`);
    if (shown.kind !== "file") throw new Error(`not saved: ${JSON.stringify(shown)}`);
    const saved = readFileSync(shown.path, "utf8");
    expect(saved).toBe("<svg><text>[REDACTED:REPL_IMAGE_TEST_TOKEN]</text></svg>");
  });
});
