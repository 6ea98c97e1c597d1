// Renders the benchmark results as the markdown page bench/RESULTS.md (absolute figures, ratios, targets).
import { renderPlacementTable } from "./placement.mjs";
import { ratio } from "./stats.mjs";

function fmt(value, unit) {
  if (!Number.isFinite(value)) return "–";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ""}`;
}

function cell(summary, unit) {
  if (!summary || !Number.isFinite(summary.median)) return "–";
  if (summary.n === 1) return fmt(summary.median, unit);
  return `**${fmt(summary.median, unit)}** (${fmt(summary.min, "")}–${fmt(summary.max, "")})`;
}

function fmtRatio(value) {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "–";
}

/** Each row: which result, which implementation is "evalkit", the unit, and the target check. */
const ROWS = [
  {
    id: "cold",
    label: "Cold start → first result of `1+1` (library, prelude included)",
    unit: "ms",
    target: { maxRatio: 1.5 },
  },
  {
    id: "cold",
    impl: "evalkit sandboxed",
    base: "evalkit",
    label: "Cold start in the sandbox (`sandbox: true`, bubblewrap); ratio column: sandboxed / unsandboxed",
    unit: "ms",
    target: { maxRatio: 1.3 },
  },
  {
    id: "cli",
    label: "Whole process: `evalkit exec -c 1+1` vs Node + L, process exit included",
    unit: "ms",
    target: { maxRatio: 1.5 },
  },
  {
    id: "cli",
    impl: "lib",
    label: "Whole process: Node imports evalkit, `1+1` via createEvalTool, dispose, exit",
    unit: "ms",
    target: { maxRatio: 1.5 },
  },
  {
    id: "cli",
    impl: "mcp",
    label: "`evalkit mcp`: spawn → `initialize` → first eval result",
    unit: "ms",
    target: { maxRatio: 1.5 },
  },
  { id: "warm", label: "Warm `1+1` round trip (full eval tool stack)", unit: "ms", target: { maxRatio: 2 } },
  { id: "warm", impl: "evalkit kernel", label: "Warm `1+1` round trip (PythonKernel only)", unit: "ms" },
  { id: "cells", label: "200-cell call, time per cell", unit: "ms" },
  {
    id: "stdout",
    part: "mbps",
    label: "stdout throughput, 50 MiB via print() (eval tool)",
    unit: "MB/s",
    target: { minRatio: 0.8 },
  },
  {
    id: "stdout",
    part: "mbps",
    impl: "evalkit kernel",
    label: "stdout throughput, 50 MiB (PythonKernel only)",
    unit: "MB/s",
  },
  {
    id: "stdout",
    part: "growth",
    label: "host RSS growth while printing 50 MiB (eval tool)",
    unit: "MB",
    target: { maxValue: 64 },
  },
  { id: "image", label: "1 MiB PNG display received", unit: "ms", target: { maxRatio: 1 } },
  {
    id: "interrupt",
    label: "Interrupt `while True: pass` → cell ended",
    unit: "ms",
    target: { maxValue: 100 },
  },
];

function judge(target, evalkit, vsL, base = "L") {
  if (!target || !evalkit || !Number.isFinite(evalkit.median)) return "";
  if (target.maxRatio !== undefined)
    return `≤ ${target.maxRatio}× ${base}: ${vsL <= target.maxRatio ? "✅" : "❌"}`;
  if (target.minRatio !== undefined)
    return `≥ ${target.minRatio}× L: ${vsL >= target.minRatio ? "✅" : "❌"}`;
  if (target.maxValue !== undefined)
    return `< ${target.maxValue}: ${evalkit.median <= target.maxValue ? "✅" : "❌"}`;
  return "";
}

export function renderMarkdown(report) {
  const { machine, results } = report;
  const lines = [
    "# evalkit benchmark results",
    "",
    `Produced by \`npm run bench\`${machine.quick ? " --quick" : ""} on ${machine.date}.`,
    "",
    `- Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGB} GB, ${machine.os}`,
    `- Node ${machine.node}; Python ${machine.python}`,
    `- Load average at start ${machine.loadAverage.join(" / ")}, at end ${(machine.loadAverageAfter ?? []).join(" / ")} (a shared machine: figures are medians of interleaved runs)`,
    `- L = minimal NDJSON REPL (bench/baseline-repl.py), J = ${report.jupyter}`,
    "",
    "Cells show **median** (min–max). For MB/s higher is better; for everything else lower is better.",
    "",
    "| metric | L | evalkit | J | evalkit / L | J / evalkit | target |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const row of ROWS) {
    const result = results[row.id];
    if (!result) continue;
    const set = row.part ? result[row.part] : result;
    if (!set) continue;
    const evalkit = set[row.impl ?? "evalkit"];
    if (!evalkit) continue;
    const vsL = ratio(evalkit, set[row.base ?? "L"]);
    const jVs = ratio(set.J, evalkit);
    lines.push(
      `| ${row.label} | ${cell(set.L, row.unit)} | ${cell(evalkit, row.unit)} | ${cell(set.J, row.unit)} | ${fmtRatio(vsL)} | ${fmtRatio(jVs)} | ${judge(row.target, evalkit, vsL, row.base)} |`,
    );
  }
  if (results.gb) {
    const ok = results.gb.growthMB <= 64 ? "✅" : "❌";
    lines.push(
      `| host RSS growth while printing 1 GiB (eval tool, once) | – | ${fmt(results.gb.growthMB, "MB")} (${fmt(results.gb.mbps, "MB/s")}) | – | – | – | < 64: ${ok} |`,
    );
  }
  // JS kernel figures have absolute targets (DESIGN.md §4), no baseline to divide by.
  for (const [id, label, target] of [
    ["jsCold", "JS kernel cold start to the first result of 1+1", 150],
    ["jsWarm", "JS kernel warm 1+1 round trip", 1],
  ]) {
    const figure = results[id];
    if (!figure) continue;
    const ok = figure.median <= target ? "✅" : "❌";
    lines.push(`| ${label} | – | ${fmt(figure.median, "ms")} | – | – | – | ≤ ${target} ms: ${ok} |`);
  }
  if (results.placement) {
    lines.push(
      "",
      "Warm `1+1` with the host and its interpreters pinned alike (`taskset`; informative, no target: on this kind of",
      "VM the scheduler may put one pair on one vCPU and another on two, and a wake-up across vCPUs costs tens of µs;",
      "docs/performance.md). Medians in µs, each evalkit figure over L's in the same placement:",
      "",
      renderPlacementTable(results.placement),
    );
  }
  lines.push(
    "",
    `Repetitions: ${Object.entries(report.reps)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    "",
  );
  return `${lines.join("\n")}\n`;
}
