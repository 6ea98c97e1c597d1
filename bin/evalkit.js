#!/usr/bin/env node
// Entry point of the `evalkit` command: the bundled CLI lives in dist/ (built by `npm install` / `npm run build`).
import module from "node:module";

// Node 22.1+ keeps compiled code of the bundle on disk (os.tmpdir()/node-compile-cache), so later starts skip
// parsing it; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such cache for ES modules.
module.enableCompileCache?.();

const { main } = await import("../dist/cli/main.js");
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`evalkit: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
