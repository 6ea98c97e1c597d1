// Warm `1+1` round trips of L, PythonKernel and the eval tool with the host and its interpreters pinned by hand
// (taskset), to tell the code's cost from where the scheduler put the processes. Informative: no target.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { BaselineRepl } from "./baseline-client.mjs";
import { createBenchTool } from "./evalkit-client.mjs";

export const PLACEMENTS = [
  { id: "scheduled", label: "as the scheduler places them" },
  { id: "oneCpu", label: "host and interpreters on one vCPU" },
  { id: "twoCpus", label: "host on vCPU 0, interpreters on vCPU 1" },
];

/** Why placements cannot be measured here, or undefined when they can (Linux, ≥ 2 CPUs, taskset). */
export function placementUnavailable() {
  if (process.platform !== "linux") return "not Linux";
  if (os.cpus().length < 2) return "fewer than 2 CPUs";
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
  } catch {
    return "taskset (util-linux) is missing";
  }
  return undefined;
}

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
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

function pin(pid, cpus) {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
  } catch {
    // the process ended meanwhile
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** {placementId: {L, kernel, tool}} medians in µs of `rounds`×`batch` interleaved calls per placement. */
export async function measurePlacements(api, python, cwd, { rounds = 10, batch = 200, warmUp = 3000 } = {}) {
  const repl = new BaselineRepl(python);
  await repl.start();
  const kernel = new api.PythonKernel({ python, cwd });
  await kernel.start();
  const tool = createBenchTool(api, python, cwd);
  const cells = { cells: [{ code: "1+1" }] };
  const runners = {
    L: () => repl.execute("1+1"),
    kernel: () => kernel.execute("1+1"),
    tool: () => tool.execute(cells),
  };
  const all = `0-${os.cpus().length - 1}`;
  const cpus = { scheduled: [all, all], oneCpu: ["0", "0"], twoCpus: ["0", "1"] };
  const results = {};
  try {
    for (const run of Object.values(runners)) for (let i = 0; i < warmUp; i++) await run();
    for (const { id } of PLACEMENTS) {
      const [hostCpus, childCpus] = cpus[id];
      pin(process.pid, hostCpus);
      for (const pid of descendants(process.pid)) pin(pid, childCpus);
      const samples = { L: [], kernel: [], tool: [] };
      for (let round = 0; round < rounds; round++) {
        for (const [name, run] of Object.entries(runners)) {
          for (let i = 0; i < batch; i++) {
            const t0 = performance.now();
            await run();
            samples[name].push((performance.now() - t0) * 1000);
          }
        }
      }
      results[id] = { L: median(samples.L), kernel: median(samples.kernel), tool: median(samples.tool) };
    }
  } finally {
    pin(process.pid, all);
    for (const pid of descendants(process.pid)) pin(pid, all);
    await tool.dispose();
    await kernel.shutdown();
    await repl.stop();
  }
  return results;
}

/** The results as a Markdown table (µs, and each evalkit figure over L's). */
export function renderPlacementTable(results) {
  const lines = ["| placement | L | PythonKernel | eval tool |", "|---|---|---|---|"];
  for (const { id, label } of PLACEMENTS) {
    const row = results[id];
    if (!row) continue;
    const vs = (value) => `${value.toFixed(0)} µs (${(value / row.L).toFixed(2)}×)`;
    lines.push(`| ${label} | ${row.L.toFixed(0)} µs | ${vs(row.kernel)} | ${vs(row.tool)} |`);
  }
  return lines.join("\n");
}
