// One stdout-throughput trial in its own Node process, so the host's peak RSS belongs to this trial alone.
// Usage: node bench/stdout-trial.mjs L|evalkit|kernel MB PYTHON   → prints one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaselineRepl } from "./lib/baseline-client.mjs";
import { printMegabytes } from "./lib/cells.mjs";
import { assertOk, createBenchTool, loadEvalkit } from "./lib/evalkit-client.mjs";

const [impl = "L", mbText = "50", python = "/usr/bin/python3"] = process.argv.slice(2);
const mb = Number(mbText);
const code = printMegabytes(mb);
const MB = 1024 * 1024;

// Every implementation first prints WARM_UP_ROUNDS × WARM_UP_MB untimed: the figure is steady-state
// throughput (a fresh process would mostly time V8 compiling evalkit's deeper stack, which takes a few tens
// of MB of output to settle). Memory growth is the measured cell's own: RSS sampled every few ms while it
// runs, against RSS just before it (the process's lifetime maxRSS would also count the warm-up's peak).
const WARM_UP_MB = 16;
const WARM_UP_ROUNDS = 3;
const warmUpCode = printMegabytes(WARM_UP_MB);
const SAMPLE_MS = 2;

async function measure(run) {
  for (let round = 0; round < WARM_UP_ROUNDS; round++) await run(warmUpCode);
  globalThis.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const t0 = performance.now();
  const chars = await run(code);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return {
    seconds,
    chars,
    mbps: chars / MB / seconds,
    rssBeforeMB: before / MB,
    peakRssMB: peak / MB,
    growthMB: (peak - before) / MB,
  };
}

let result;
if (impl === "L") {
  const repl = new BaselineRepl(python);
  await repl.start();
  await repl.execute("1+1");
  result = await measure(async (source) => (await repl.execute(source)).streamChars);
  await repl.stop();
} else {
  const api = await loadEvalkit();
  const dir = mkdtempSync(join(tmpdir(), "evalkit-bench-"));
  if (impl === "kernel") {
    const kernel = new api.PythonKernel({ python, cwd: dir, retainStreamBytes: 0 });
    await kernel.start();
    await kernel.execute("1+1");
    result = await measure(async (source) => {
      let chars = 0;
      await kernel.execute(source, {
        onOutput: (o) => {
          if (o.type === "stream") chars += o.text.length;
        },
      });
      return chars;
    });
    await kernel.shutdown();
  } else {
    const tool = createBenchTool(api, python, dir);
    assertOk(await tool.execute({ cells: [{ code: "1+1" }] }), "warm-up");
    result = await measure(async (source) => {
      const out = assertOk(await tool.execute({ cells: [{ code: source }] }), "stdout");
      const cell = out.details.cells[0];
      return cell.truncated ? cell.truncated.totalBytes : cell.text.length;
    });
    await tool.dispose();
  }
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(result)}\n`);
