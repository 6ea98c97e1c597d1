// The built package (scripts/build.mjs → dist/) is what users run: it works, exports what src/index.ts does,
// finds python/ from its bundles, and runs the MCP SDK and acorn only on the paths that need them.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the build, without type declarations.
import { COMMONJS_BUNDLES, commonJsOptions } from "../scripts/bundle-config.mjs";
import * as source from "../src/index.js";
import { collectRunnerSources, PREBUILT_SOURCES_FILE } from "../src/kernel/python/runner-bundle.js";
import { ensureBuilt, ROOT } from "./helpers/build.js";
import { TEST_PYTHON } from "./helpers/interpreters.js";

const DIST_INDEX = pathToFileURL(path.join(ROOT, "dist", "index.js")).href;

/** Runs Node with `args` in the package; fails the test when it exits non-zero. */
function runNode(args: string[]): { stdout: string } {
  const child = spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, EVALKIT_JS: "0" },
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`node ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  return { stdout: child.stdout };
}

/**
 * The source files a bundle initialises when `from` runs: its static imports, transitively. esbuild turns a
 * module reached only through `import()` into one that initialises when that import runs, so what lies only
 * behind a dynamic import costs nothing until then.
 */
function initialisedWith(metafile: Metafile, from: string): Set<string> {
  const seen = new Set<string>();
  const queue = [from];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of metafile.inputs[file]?.imports ?? []) {
      if (!edge.external && edge.kind !== "dynamic-import") queue.push(edge.path);
    }
  }
  return seen;
}

async function metafileOf(outfile: string): Promise<Metafile> {
  const bundle = (COMMONJS_BUNDLES as { entry: string; outfile: string }[]).find(
    (b) => b.outfile === outfile,
  );
  if (!bundle) throw new Error(`no bundle ${outfile}`);
  const result = await build({
    ...commonJsOptions(bundle),
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  if (!result.metafile) throw new Error("esbuild wrote no metafile");
  return result.metafile;
}

// ws and the Jupyter client load only for a configured Jupyter server (docs/jupyter.md).
const HEAVY = /node_modules\/(@modelcontextprotocol|ajv|acorn|ws)\/|src\/kernel\/jupyter\//;
// Chart renderers: never inside the library or CLI bundles (dist/charts.cjs and node_modules hold them).
const CHART_RENDERERS = /node_modules\/(vega|vega-[a-z-]+|d3-[a-z-]+|@resvg)\//;

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

describe("the bundles", () => {
  it("initialise neither the MCP SDK nor ajv nor acorn nor the Jupyter client when the main export is imported", async () => {
    const meta = await metafileOf("evalkit.cjs");
    const eager = [...initialisedWith(meta, "src/index.ts")];
    expect(eager.some((file) => file.startsWith("node_modules/zod/"))).toBe(true);
    expect(eager.filter((file) => HEAVY.test(file))).toEqual([]);
    // …and they do hold the SDK, for createEvalMcpServer.
    expect(Object.keys(meta.inputs).some((file) => file.includes("@modelcontextprotocol/sdk"))).toBe(true);
  });

  it("initialise neither the MCP SDK nor acorn nor the Jupyter client on the path of `evalkit exec`", async () => {
    const meta = await metafileOf("cli.cjs");
    const exec = [...initialisedWith(meta, "src/cli/main.ts"), ...initialisedWith(meta, "src/cli/exec.ts")];
    expect(exec).toContain("src/tool/eval-tool.ts");
    expect(exec.filter((file) => HEAVY.test(file))).toEqual([]);
    expect(Object.keys(meta.inputs).some((file) => file.startsWith("node_modules/ws/"))).toBe(true);
    const mcp = initialisedWith(meta, "src/mcp/server.ts");
    expect([...mcp].some((file) => file.includes("@modelcontextprotocol/sdk"))).toBe(true);
  });

  it("hold no chart renderer: Vega and resvg load from outside them on the first chart", async () => {
    for (const outfile of ["evalkit.cjs", "cli.cjs"]) {
      const meta = await metafileOf(outfile);
      expect(
        Object.keys(meta.inputs).filter((file) => CHART_RENDERERS.test(file)),
        outfile,
      ).toEqual([]);
    }
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

  it("runs a cell through createEvalTool from the built main export", () => {
    const script = `
      const { createEvalTool } = await import(${JSON.stringify(DIST_INDEX)});
      const tool = createEvalTool({ python: ${JSON.stringify(TEST_PYTHON)}, js: false });
      const { details } = await tool.execute({ cells: [{ code: "6*7" }] });
      await tool.dispose();
      console.log(details.cells[0].text.trim());`;
    const child = runNode(["--input-type=module", "-e", script]);
    expect(child.stdout.trim()).toBe("42");
  });

  it("holds the Python runner exactly as python/ has it, for kernels to start without reading ~60 files", () => {
    const prebuilt = readFileSync(path.join(ROOT, "dist", PREBUILT_SOURCES_FILE), "utf8");
    expect(JSON.parse(prebuilt)).toEqual(collectRunnerSources());
  });

  it("runs `evalkit exec` from the built CLI", () => {
    const child = runNode(["bin/evalkit.js", "exec", "--python", TEST_PYTHON, "-c", "6*7"]);
    expect(child.stdout.trim()).toBe("42");
  });

  it("loads the chart renderers (resvg, Vega from dist/charts.cjs) on the first chart only, and draws it", () => {
    const script = `
      const { createRequire } = await import("node:module");
      const { createEvalTool } = await import(${JSON.stringify(DIST_INDEX)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache)
        .filter((file) => /resvg|charts\\.cjs/.test(file)).map((file) => file.split("/").pop());
      const tool = createEvalTool({ python: ${JSON.stringify(TEST_PYTHON)}, js: false });
      await tool.execute({ cells: [{ code: "print(1)" }] });
      const before = loaded();
      const spec = '{"data": {"values": [{"a": 1}]}, "mark": "point", "encoding": {"x": {"field": "a", "type": "quantitative"}}}';
      const { content } = await tool.execute({ cells: [{ code: "display({'application/vnd.vegalite.v5+json': " + spec + "}, raw=True)" }] });
      await tool.dispose();
      console.log(JSON.stringify({ before, after: loaded(), images: content.filter((b) => b.type === "image").map((b) => b.mimeType) }));`;
    const { before, after, images } = JSON.parse(
      runNode(["--input-type=module", "-e", script]).stdout.trim(),
    );
    expect(before).toEqual([]);
    expect(after).toContain("charts.cjs");
    expect(after.some((file: string) => file.includes("resvg"))).toBe(true);
    expect(images).toEqual(["image/png"]);
  });

  it("creates an MCP server from the main export", () => {
    const script = `
      const { createEvalMcpServer } = await import(${JSON.stringify(DIST_INDEX)});
      const mcp = await createEvalMcpServer({ python: ${JSON.stringify(TEST_PYTHON)} });
      console.log(typeof mcp.server.setRequestHandler);
      await mcp.close();`;
    expect(runNode(["--input-type=module", "-e", script]).stdout.trim()).toBe("function");
  });
});
