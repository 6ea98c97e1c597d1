// esbuild settings of dist/'s bundles, shared by scripts/build.mjs and test/build.test.ts (which checks what
// each bundle runs at load), so the two cannot drift apart.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** The CommonJS bundles, each loaded through the code cache (src/boot/load-bundle.ts). */
export const COMMONJS_BUNDLES = [
  { entry: "src/index.ts", outfile: "evalkit.cjs" },
  { entry: "src/cli/main.ts", outfile: "cli.cjs" },
];

/** Small ES modules: the bundle loader and the integrations over their peer dependency. */
export const ESM_ENTRIES = [
  "src/boot/load-bundle.ts",
  "src/integrations/ai-sdk.ts",
  "src/integrations/openai-agents.ts",
];

export const COMMON_OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  target: "node20",
  // Not minified: an uncaught error shows the bundle's line as written (names, whitespace, one statement a line;
  // esbuild marks each source file with a `// src/….ts` comment), not one of a line thousands of characters
  // long. Measured (bench/lib-cold.mjs and `evalkit exec -c 1+1`, interleaved, against the minified build): CPU
  // 0.93-0.94x, wall 0.95-1.06x, as the code cache (src/boot/load-bundle.ts) skips parsing either way. The maps
  // stay, for debuggers.
  sourcemap: true,
  logLevel: "warning",
  // Loaded with createRequire when first needed (HTML → markdown), from node_modules as installed.
  // Peer dependencies (the AI SDK, the OpenAI Agents SDK) are the user's own copies, never bundled.
  // The chart renderers (resvg's native binary, Vega's ES modules) load with import() on the first chart.
  external: [
    "turndown",
    "turndown-plugin-gfm",
    "@resvg/resvg-js",
    "vega",
    "vega-lite",
    ...Object.keys(pkg.peerDependencies ?? {}),
  ],
};

/**
 * The SDK's Server imports its ajv provider at load and builds ajv at construction (~3 ms); evalkit passes its
 * own validator, which loads the SDK's provider from node_modules on first use (src/mcp/elicitation-validator.ts).
 */
const withoutBundledAjv = {
  name: "evalkit-without-bundled-ajv",
  setup(build) {
    build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes("@modelcontextprotocol/sdk")
        ? { path: fileURLToPath(new URL("../src/mcp/ajv-provider-unbundled.ts", import.meta.url)) }
        : undefined,
    );
  },
};

/** Options for one CommonJS bundle; `import.meta.url` becomes the bundle file's own URL (for the package root). */
export function commonJsOptions({ entry, outfile }) {
  return {
    ...COMMON_OPTIONS,
    entryPoints: [entry],
    outfile: `dist/${outfile}`,
    format: "cjs",
    plugins: [withoutBundledAjv],
    // Lets code ask whether it runs as the bundle (src/kernel/python/runner-bundle.ts reads the prebuilt runner).
    define: { EVALKIT_BUNDLED: "true", "import.meta.url": "__evalkitBundleUrl" },
    banner: { js: 'var __evalkitBundleUrl=require("node:url").pathToFileURL(__filename).href;' },
  };
}

/** dist/charts.cjs: Vega and Vega-Lite bundled to CommonJS (src/output/display/chart-raster.ts requires it lazily). */
export function chartsOptions() {
  return {
    ...COMMON_OPTIONS,
    external: [],
    entryPoints: ["src/output/display/chart-vega.ts"],
    outfile: "dist/charts.cjs",
    format: "cjs",
    sourcemap: false,
    plugins: [withoutNodeCanvas],
  };
}

/**
 * vega-canvas's Node build awaits `import("canvas")` at the top level (not possible in CommonJS) for canvas
 * rendering; evalkit draws charts as SVG, so its browser build (no canvas without a DOM) is the one bundled.
 */
const withoutNodeCanvas = {
  name: "evalkit-without-node-canvas",
  setup(build) {
    build.onResolve({ filter: /^vega-canvas$/ }, () => ({
      path: fileURLToPath(
        new URL("../node_modules/vega-canvas/build/vega-canvas.browser.js", import.meta.url),
      ),
    }));
  },
};
