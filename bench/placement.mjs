// `node bench/placement.mjs`: warm `1+1` round trips of L, PythonKernel and the eval tool with the host and its
// interpreters placed by hand on the CPUs (taskset), to tell the code's cost from where the scheduler put them.
// Informative only (no target): see docs/performance.md, "Where the warm round trip goes". Linux, ≥ 2 CPUs.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { BaselineRepl } from "./lib/baseline-client.mjs";
import { createBenchTool, loadEvalkit } from "./lib/evalkit-client.mjs";

const python = process.argv[2] ?? "/usr/bin/python3";
const ROUNDS = 10;
const BATCH = 200;

/** Every process below this one (interpreters, launchers, sandbox helpers). */
function descendants(pid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function pin(pid, cpus) {
  execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const api = await loadEvalkit();
const repl = new BaselineRepl(python);
await repl.start();
const kernel = new api.PythonKernel({ python, cwd: os.tmpdir() });
await kernel.start();
const tool = createBenchTool(api, python, os.tmpdir());
const cells = { cells: [{ code: "1+1" }] };
const runners = {
  L: () => repl.execute("1+1"),
  PythonKernel: () => kernel.execute("1+1"),
  "eval tool": () => tool.execute(cells),
};
for (const run of Object.values(runners)) for (let i = 0; i < 3000; i++) await run();

const all = `0-${os.cpus().length - 1}`;
const placements = [
  ["as the scheduler places them", all, all],
  ["host and interpreters on one CPU", "0", "0"],
  ["host on CPU 0, interpreters on CPU 1", "0", "1"],
];
const rows = [];
for (const [label, hostCpus, childCpus] of placements) {
  pin(process.pid, hostCpus);
  for (const pid of descendants(process.pid)) pin(pid, childCpus);
  const samples = Object.fromEntries(Object.keys(runners).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(runners)) {
      for (let i = 0; i < BATCH; i++) {
        const t0 = performance.now();
        await run();
        samples[name].push((performance.now() - t0) * 1000);
      }
    }
  }
  const m = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, median(s)]));
  rows.push(
    `| ${label} | ${m.L.toFixed(0)} µs | ${m.PythonKernel.toFixed(0)} µs (${(m.PythonKernel / m.L).toFixed(2)}×) | ` +
      `${m["eval tool"].toFixed(0)} µs (${(m["eval tool"] / m.L).toFixed(2)}×) |`,
  );
}
pin(process.pid, all);
console.log(`Warm \`1+1\` round trip, median of ${ROUNDS}×${BATCH} interleaved calls (${python}):\n`);
console.log("| placement | L | PythonKernel | eval tool |\n|---|---|---|---|");
console.log(rows.join("\n"));
await tool.dispose();
await kernel.shutdown();
await repl.stop();
