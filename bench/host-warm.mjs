// The host's own work per warm `1+1` through createEvalTool, over an instant in-memory kernel (no interpreter).
// Usage: node bench/host-warm.mjs [ROOT...]   ROOT: a checkout whose dist/ is built (default: this one); several
// roots are measured interleaved (an A/B of two builds), each a median of 15 rounds of 2,000 calls, in µs per call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const roots = process.argv.slice(2);
if (roots.length === 0) roots.push(fileURLToPath(new URL("..", import.meta.url)));
const ROUNDS = 15;
const CALLS = 2000;
const WARM_UP_CALLS = 20_000;

/** Answers every cell at once with the result `2`, as a warm kernel would, and keeps nothing it is told not to. */
class InstantKernel {
  language = "py";
  isAlive = false;
  count = 0;
  async start() {
    this.isAlive = true;
  }
  async execute(_code, options = {}) {
    const output = { type: "result", data: { "text/plain": "2" } };
    options.onOutput?.(output);
    this.count += 1;
    const outputs = options.retainOutputs === false ? [] : [output];
    return { status: "ok", cancelled: false, executionCount: this.count, outputs, durationMs: 0.01 };
  }
  interrupt() {}
  async shutdown() {
    this.isAlive = false;
    return undefined;
  }
  onExit() {
    return () => {};
  }
}

const cwd = mkdtempSync(join(tmpdir(), "evalkit-host-warm-"));
const tools = [];
for (const root of roots) {
  const { createEvalTool } = await import(pathToFileURL(resolve(root, "dist/index.js")).href);
  tools.push(createEvalTool({ cwd, js: false, createKernel: () => new InstantKernel() }));
}
const input = { cells: [{ code: "1+1" }] };
for (const tool of tools) for (let i = 0; i < WARM_UP_CALLS; i++) await tool.execute(input);
const samples = tools.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < tools.length; k++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await tools[k].execute(input);
    samples[k].push(((performance.now() - started) / CALLS) * 1000);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figures = Object.fromEntries(roots.map((root, k) => [root, Number(median(samples[k]).toFixed(2))]));
process.stdout.write(`${JSON.stringify({ unit: "µs per call", ...figures })}\n`);
await Promise.all(tools.map((tool) => tool.dispose()));
rmSync(cwd, { recursive: true, force: true });
