#!/usr/bin/env node
// Entry point of the `evalkit` command: the compiled CLI lives in dist/ (built by `npm install` / `npm run build`).
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`evalkit: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
