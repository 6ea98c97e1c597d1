// `npm test` after the build: vitest and the runner's Python unit tests at the same time (they share nothing, and
// vitest's files mostly wait on the kernels they start), Python's report printed after vitest's. Fails if either does.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const python = spawn(process.execPath, ["scripts/run-python-tests.mjs"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
});
let report = "";
python.stdout.on("data", (chunk) => {
  report += chunk;
});
python.stderr.on("data", (chunk) => {
  report += chunk;
});
const pythonDone = new Promise((resolve) => python.on("close", (code) => resolve(code ?? 1)));
const vitest = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
const vitestCode = await new Promise((resolve) => vitest.on("close", (code) => resolve(code ?? 1)));
const pythonCode = await pythonDone;
process.stdout.write(`\n${report}`);
process.exit(vitestCode !== 0 ? vitestCode : pythonCode);
