#!/usr/bin/env node
// Entry point of the `evalkit` command: loads the bundled CLI (dist/cli.cjs, built by `npm install` /
// `npm run build`) through evalkit's code cache, one cache per command so each holds the code its path runs.
import { loadBundle } from "../dist/boot/load-bundle.js";

const COMMANDS = new Set(["exec", "repl", "mcp", "doctor", "setup", "artifact"]);
const command = process.argv[2] ?? "";
const { main } = loadBundle(
  new URL("../dist/cli.cjs", import.meta.url),
  `cli-${COMMANDS.has(command) ? command : "other"}`,
);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`evalkit: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
