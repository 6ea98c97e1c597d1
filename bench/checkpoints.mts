// Checkpoint bench (docs/checkpoints.md): checkpoint and restore of a kernel holding 1 GB, memory a checkpoint holds,
// cold start with checkpoints, and what automatic undo costs on warm 1+1 and on notebook replay (one call per cell).
// Run: node --import tsx bench/checkpoints.mts [python]   (figures go to stdout as a markdown table)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PythonKernel } from "../src/kernel/python/python-kernel.js";
import { createEvalTool, type EvalTool } from "../src/tool/eval-tool.js";

const python = process.argv[2] ?? "/usr/bin/python3";
const rows: string[][] = [];
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
const ms = (start: number) => performance.now() - start;

async function bigState(): Promise<void> {
  const kernel = new PythonKernel({ python, checkpoints: true });
  await kernel.start();
  const book = kernel.checkpoints;
  if (book === undefined) throw new Error("no checkpoints");
  await kernel.execute("big = bytearray(b'x' * (1 << 30))");
  const takes: number[] = [];
  const restores: number[] = [];
  for (let i = 0; i < 7; i++) {
    let start = performance.now();
    await book.take(`c${i}`);
    takes.push(ms(start));
    start = performance.now();
    await book.restore(`c${i}`);
    restores.push(ms(start));
    // The first cell after a restore: pages are touched as Python runs (copy-on-write faults of the new runner).
    await kernel.execute("1");
    await book.drop(`c${i}`);
  }
  rows.push([
    "checkpoint of a kernel holding 1 GB",
    `${median(takes).toFixed(2)} ms`,
    range(takes),
    "≤ 20 ms",
  ]);
  rows.push(["restore of that checkpoint", `${median(restores).toFixed(2)} ms`, range(restores), "≤ 10 ms"]);
  await book.take("held");
  await kernel.execute("big[: 100 << 20] = b'y' * (100 << 20)");
  const memory = await book.describe(["held"]);
  const held = (memory[0]?.privateBytes ?? 0) / 1024 ** 2;
  rows.push([
    "memory a checkpoint holds after 100 MB of 1 GB changed",
    `${held.toFixed(1)} MB`,
    "",
    "≈ pages changed",
  ]);
  await kernel.shutdown();
}

async function coldStart(withCheckpoints: boolean): Promise<number> {
  const start = performance.now();
  const kernel = new PythonKernel({ python, checkpoints: withCheckpoints, codeCacheDir: false });
  await kernel.start();
  await kernel.execute("1+1");
  const took = ms(start);
  await kernel.shutdown();
  return took;
}

async function warm(tool: EvalTool, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await tool.execute({ cells: [{ code: "1+1" }] });
    times.push(ms(start));
  }
  return times;
}

function notebookCells(limit: number): string[][] {
  const dir = new URL("./notebooks/", import.meta.url).pathname;
  const books = readdirSync(dir)
    .filter((name) => /^0[23]\./.test(name))
    .slice(0, limit);
  return books.map((name) => {
    const nb = JSON.parse(readFileSync(join(dir, name), "utf8")) as {
      cells: { cell_type: string; source: string | string[] }[];
    };
    return nb.cells
      .filter((cell) => cell.cell_type === "code")
      .map((cell) => (Array.isArray(cell.source) ? cell.source.join("") : cell.source))
      .filter((code) => !/%matplotlib|plt\.|seaborn|timeit|%time/.test(code));
  });
}

async function replay(books: string[][], undo: boolean): Promise<number> {
  let total = 0;
  for (const cells of books) {
    const tool = createEvalTool({ python, ...(undo ? { checkpoints: { undo: 1 } } : {}) });
    await tool.execute({ cells: [{ code: "1" }] });
    const start = performance.now();
    for (const code of cells) await tool.execute({ cells: [{ code }] });
    total += ms(start);
    await tool.dispose();
  }
  return total;
}

async function forkTimes(): Promise<number[]> {
  const tool = createEvalTool({ python, checkpoints: { undo: 0 } });
  await tool.execute({ cells: [{ code: "import json, collections\nstate = list(range(100000))" }] });
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    const fork = await tool.fork();
    await fork.execute({ cells: [{ code: "len(state)" }] });
    times.push(ms(start));
    await fork.dispose();
  }
  await tool.dispose();
  return times;
}

await bigState();
const forks = await forkTimes();
rows.push(["`tool.fork()` → first result in the fork", `${median(forks).toFixed(1)} ms`, range(forks), ""]);
const cold: Record<string, number[]> = { off: [], on: [] };
for (let i = 0; i < 9; i++) {
  cold.off!.push(await coldStart(false));
  cold.on!.push(await coldStart(true));
}
rows.push([
  "cold start → first result, checkpoints off / on",
  `${median(cold.off!).toFixed(1)} / ${median(cold.on!).toFixed(1)} ms`,
  `${(median(cold.on!) / median(cold.off!)).toFixed(2)}×`,
  "",
]);
const plain = createEvalTool({ python });
const undo = createEvalTool({ python, checkpoints: { undo: 1 } });
await warm(plain, 50);
await warm(undo, 50);
const warmOff: number[] = [];
const warmOn: number[] = [];
for (let round = 0; round < 5; round++) {
  warmOff.push(...(await warm(plain, 60)));
  warmOn.push(...(await warm(undo, 60)));
}
await plain.dispose();
await undo.dispose();
rows.push([
  "warm `1+1` through the tool, automatic undo off / on",
  `${median(warmOff).toFixed(3)} / ${median(warmOn).toFixed(3)} ms`,
  `${(median(warmOn) / median(warmOff)).toFixed(2)}×`,
  "≤ 2×",
]);
const books = notebookCells(6);
const cellCount = books.reduce((sum, cells) => sum + cells.length, 0);
const replayOff: number[] = [];
const replayOn: number[] = [];
for (let round = 0; round < 3; round++) {
  replayOff.push(await replay(books, false));
  replayOn.push(await replay(books, true));
}
rows.push([
  `notebook replay, ${books.length} notebooks, ${cellCount} cells, one call each: undo off / on`,
  `${median(replayOff).toFixed(0)} / ${median(replayOn).toFixed(0)} ms`,
  `${((median(replayOn) / median(replayOff) - 1) * 100).toFixed(1)}%`,
  "≤ 5%",
]);
console.log("| metric | median | range / ratio | target |\n|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
