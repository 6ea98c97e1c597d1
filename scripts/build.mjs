// `npm run build`: dist/ as users get it — esbuild bundles (one file per entry, shared chunks, lazy chunks for
// dynamic imports) plus tsc's .d.ts files. Entry points: src/index.ts, src/cli/main.ts and every subpath of
// package.json `exports` that points into dist/.
//
// Why a bundle: Node 20 has no compile cache for ES modules, so every module file costs a resolve, a read and a
// compile; zod alone is ~100 small modules and the MCP SDK ~60 more. A few minified chunks load in a fraction
// of that, and what a path does not need (the MCP SDK for `exec`, acorn before the first JS cell) sits in
// chunks that only a dynamic `import()` loads. See docs/performance.md.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
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
});

// Type declarations (dist/**/*.d.ts) for library users; tsc also type-checks the sources here.
execFileSync(
  process.execPath,
  [fileURLToPath(import.meta.resolve("typescript/bin/tsc")), "-p", "tsconfig.build.json"],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
