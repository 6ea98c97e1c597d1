// A failure inside the built library reads like source: Node's report of an uncaught error points at a line of
// normal length in the bundle, under the comment that names the source file it came from.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../helpers/build.js";

const DIST_INDEX = pathToFileURL(path.join(ROOT, "dist", "index.js")).href;

describe("errors thrown from the built library", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);

  it("show a stack with the bundle's file and line, a source line of normal length, and the source file's name", () => {
    // execute() on a kernel never started: the library throws from its own code, and nobody catches it.
    const script = [
      `import { PythonKernel } from ${JSON.stringify(DIST_INDEX)};`,
      `await new PythonKernel({ python: "python3" }).execute("1+1");`,
    ].join("\n");
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status).not.toBe(0);
    const report = child.stderr;
    // Node prints `file:line`, the line, a caret under the throw, then the stack.
    const where = /^(\/\S+\/dist\/evalkit\.cjs):(\d+)\n(.*)\n/m.exec(report);
    expect(where, report.slice(0, 2000)).not.toBeNull();
    const [, file = "", lineText = "0", shown = ""] = where ?? [];
    expect(shown.length).toBeLessThan(200);
    expect(shown).toContain("EvalkitError");
    expect(report).toMatch(/EvalkitError: [\w ]*kernel is not running/);
    expect(report).toMatch(/at PythonKernel\.\w+ \(\S+\/dist\/evalkit\.cjs:\d+:\d+\)/);
    for (const line of report.split("\n")) expect(line.length).toBeLessThan(300);
    // The source file the thrown line comes from: the nearest `// src/….ts` marker above it in the bundle.
    const lines = readFileSync(file, "utf8").split("\n").slice(0, Number(lineText));
    const marker = lines.reverse().find((line) => /^\/\/ src\/.+\.ts$/.test(line));
    expect(marker).toMatch(/^\/\/ src\/kernel\/[\w/-]+\.ts$/);
  });
});
