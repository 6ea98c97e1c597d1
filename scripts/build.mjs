// `npm run build`: dist/ as users get it — esbuild bundles (one file per entry, shared chunks, lazy chunks for
// dynamic imports) plus tsc's .d.ts files. Entry points: src/index.ts, src/cli/main.ts and every subpath of
// package.json `exports` that points into dist/.
//
// Why a bundle: Node 20 has no compile cache for ES modules, so every module file costs a resolve, a read and a
// compile; zod alone is ~100 small modules and the MCP SDK ~60 more. A few minified chunks load in a fraction
// of that, and what a path does not need (the MCP SDK for `exec`, acorn before the first JS cell) sits in
// chunks that only a dynamic `import()` loads. See docs/performance.md.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("package.json", `file://${ROOT}`), "utf8"));

/** `./dist/a/b.js` → `src/a/b.ts` for each export condition that points at built code. */
function exportEntries() {
  const entries = new Set(["src/index.ts", "src/cli/main.ts"]);
  const visit = (value) => {
    if (typeof value === "string") {
      const match = /^\.\/dist\/(.+)\.js$/.exec(value);
      if (match) entries.add(`src/${match[1]}.ts`);
    } else if (value && typeof value === "object") Object.values(value).forEach(visit);
  };
  visit(pkg.exports ?? {});
  return [...entries];
}

rmSync(new URL("dist", `file://${ROOT}`), { recursive: true, force: true });

await build({
  absWorkingDir: ROOT,
  entryPoints: exportEntries(),
  outdir: "dist",
  outbase: "src",
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Fewer bytes to read and parse; identifiers keep their names so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  // Loaded with createRequire when first needed (HTML → markdown), from node_modules as installed.
  // Peer dependencies (the AI SDK, the OpenAI Agents SDK) are the user's own copies, never bundled.
  external: ["turndown", "turndown-plugin-gfm", ...Object.keys(pkg.peerDependencies ?? {})],
  logLevel: "warning",
  // Lets code ask whether it runs as the bundle (src/kernel/python/runner-bundle.ts reads the prebuilt runner).
  define: { EVALKIT_BUNDLED: "true" },
});

// The Python runner's sources and digests, serialised once here instead of at every kernel start (reading and
// hashing ~60 files cost ~7 ms per process). Collected by the same code the sources run, bundled to a
// throw-away module inside dist/ so that it finds the package root as the bundle does.
const collector = new URL("dist/.collect-runner-sources.mjs", `file://${ROOT}`);
const collected = await build({
  absWorkingDir: ROOT,
  entryPoints: ["src/kernel/python/runner-bundle.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
});
writeFileSync(collector, collected.outputFiles[0].contents);
try {
  const { collectRunnerSources, PREBUILT_SOURCES_FILE } = await import(collector.href);
  writeFileSync(
    new URL(`dist/${PREBUILT_SOURCES_FILE}`, `file://${ROOT}`),
    JSON.stringify(collectRunnerSources()),
  );
} finally {
  rmSync(collector, { force: true });
}

// Type declarations (dist/**/*.d.ts) for library users; tsc also type-checks the sources here.
execFileSync(
  process.execPath,
  [fileURLToPath(import.meta.resolve("typescript/bin/tsc")), "-p", "tsconfig.build.json"],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
