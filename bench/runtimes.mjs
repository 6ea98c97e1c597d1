// Warm `1+1` on each runtime of the one kernel client (Python, JS, the Perl protocol runner), kernel alone and
// through the whole eval tool, interleaved rounds, median per cell. `npm run build` first; needs perl (JSON::PP).
// usage: node bench/runtimes.mjs [CELLS] [ROUNDS] [PYTHON]
import { fileURLToPath } from "node:url";
import { createEvalTool, createRuntimeKernel, defineRuntime, JsKernel, PythonKernel } from "../dist/index.js";

const cells = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const python = process.argv[4] ?? "/usr/bin/python3";
const perl = defineRuntime({
  name: "perl",
  command: ["perl", fileURLToPath(new URL("../test/fixtures/perl-runner.pl", import.meta.url))],
});

/** Microseconds per warm cell of `run`, after 100 unmeasured ones. */
async function measure(run) {
  for (let i = 0; i < 100; i++) await run();
  const started = performance.now();
  for (let i = 0; i < cells; i++) await run();
  return ((performance.now() - started) / cells) * 1000;
}

const subjects = {
  "python kernel": async () => {
    const kernel = new PythonKernel({ python });
    await kernel.start();
    return [() => kernel.execute("1+1"), () => kernel.shutdown()];
  },
  "js kernel": async () => {
    const kernel = new JsKernel();
    await kernel.start();
    return [() => kernel.execute("1+1"), () => kernel.shutdown()];
  },
  "perl kernel": async () => {
    const kernel = createRuntimeKernel(perl);
    await kernel.start();
    return [() => kernel.execute("1+1"), () => kernel.shutdown()];
  },
  "python tool": async () => {
    const tool = createEvalTool({ python });
    return [() => tool.execute({ cells: [{ code: "1+1" }] }), () => tool.dispose()];
  },
  "perl tool": async () => {
    const tool = createEvalTool({ python, runtimes: [perl] });
    return [() => tool.execute({ cells: [{ language: "perl", code: "1+1" }] }), () => tool.dispose()];
  },
};

const figures = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, open] of Object.entries(subjects)) {
    const [run, close] = await open();
    figures[name].push(await measure(run));
    await close();
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(figures))
  console.log(
    `${name.padEnd(14)} ${median(values).toFixed(0).padStart(6)} µs/cell (median of ${rounds} rounds of ${cells})`,
  );
