// The built package (scripts/build.mjs → dist/) is what users run: it works, exports what src/index.ts does,
// finds python/ from its chunks, and loads the MCP SDK and acorn only on the paths that need them.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import * as source from "../src/index.js";
import { collectRunnerSources, PREBUILT_SOURCES_FILE } from "../src/kernel/python/runner-bundle.js";
import { ensureBuilt, ROOT } from "./helpers/build.js";
import { TEST_PYTHON } from "./helpers/interpreters.js";

const DIST_INDEX = pathToFileURL(path.join(ROOT, "dist", "index.js")).href;
// Strings only the MCP SDK's server code holds: a loaded file with one of them is the SDK.
const SDK_MARKERS = ["StdioServerTransport", "notifications/initialized"];

// A module resolve hook that reports every file the ES module loader loads.
const HOOK = `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith("file:")) process.stderr.write("LOADED " + r.url + "\\n"); return r; }`;
const REGISTER = `import { register } from "node:module"; register("data:text/javascript,${encodeURIComponent(HOOK)}");`;

interface Run {
  stdout: string;
  /** Files loaded by the ES module loader. */
  files: string[];
}

/** Runs Node with `args` under the reporting hook; fails the test when it exits non-zero. */
function runReported(args: string[]): Run {
  const child = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, ...args],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, EVALKIT_JS: "0" },
      timeout: 60_000,
    },
  );
  if (child.status !== 0) throw new Error(`node ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  const files = [...child.stderr.matchAll(/^LOADED (file:\S+)$/gm)].map((m) => new URL(m[1] ?? "").pathname);
  return { stdout: child.stdout, files: [...new Set(files)] };
}

function holdsSdk(file: string): boolean {
  const text = readFileSync(file, "utf8");
  return SDK_MARKERS.some((marker) => text.includes(marker));
}

/** Every .ts file under src/. */
function sourceFiles(dir = path.join(ROOT, "src")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("the sources", () => {
  it("import zod as a namespace, so the bundle keeps only the parts evalkit uses", () => {
    // `import { z } from "zod"` makes esbuild keep all of zod (every locale: ~430 KB more to load at start).
    const offenders = sourceFiles().filter((file) =>
      /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*["']zod/.test(
        readFileSync(file, "utf8").replace(/import\s+type\s*\{[^}]*\}[^;]*;/g, ""),
      ),
    );
    expect(offenders.map((file) => path.relative(ROOT, file))).toEqual([]);
  });
});

describe("the built package", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);

  it("exports the same names as the sources' public entry point", async () => {
    const built = (await import(DIST_INDEX)) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
  });

  it("runs a cell through createEvalTool without loading the MCP SDK or acorn", () => {
    const script = `
      import { createRequire } from "node:module";
      const { createEvalTool } = await import(${JSON.stringify(DIST_INDEX)});
      const tool = createEvalTool({ python: ${JSON.stringify(TEST_PYTHON)}, js: false });
      const { details } = await tool.execute({ cells: [{ code: "6*7" }] });
      await tool.dispose();
      const cjs = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("acorn"));
      console.log(JSON.stringify({ text: details.cells[0].text.trim(), cjs }));`;
    const run = runReported(["--input-type=module", "-e", script]);
    expect(JSON.parse(run.stdout)).toEqual({ text: "42", cjs: [] });
    expect(run.files.some((file) => file.startsWith(path.join(ROOT, "dist")))).toBe(true);
    expect(run.files.filter(holdsSdk)).toEqual([]);
  });

  it("holds the Python runner exactly as python/ has it, for kernels to start without reading ~60 files", () => {
    const prebuilt = readFileSync(path.join(ROOT, "dist", PREBUILT_SOURCES_FILE), "utf8");
    expect(JSON.parse(prebuilt)).toEqual(collectRunnerSources());
  });

  it("runs `evalkit exec` without loading the MCP SDK", () => {
    const run = runReported(["bin/evalkit.js", "exec", "--python", TEST_PYTHON, "-c", "6*7"]);
    expect(run.stdout.trim()).toBe("42");
    expect(run.files.filter(holdsSdk)).toEqual([]);
  });

  it("loads the MCP SDK when an MCP server is created from the main export", () => {
    const script = `
      const { createEvalMcpServer } = await import(${JSON.stringify(DIST_INDEX)});
      const mcp = await createEvalMcpServer({ python: ${JSON.stringify(TEST_PYTHON)} });
      console.log(typeof mcp.server.setRequestHandler);
      await mcp.close();`;
    const run = runReported(["--input-type=module", "-e", script]);
    expect(run.stdout.trim()).toBe("function");
    expect(run.files.filter(holdsSdk).length).toBeGreaterThan(0);
  });
});
