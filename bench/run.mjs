// `npm run bench`: evalkit against its lower bound (minimal NDJSON REPL) and Jupyter, interleaved, → bench/RESULTS.md.
// Flags: --quick (fewer repetitions), --json (print the results as JSON), --no-write (keep RESULTS.md),
//        --only a,b (metric ids), --python PATH (default /usr/bin/python3), --gb / --no-gb (the 1 GB memory check).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadEvalkit } from "./lib/evalkit-client.mjs";
import { jsColdStart, jsWarmRoundTrip } from "./lib/js-kernel-metrics.mjs";
import { JupyterDriver } from "./lib/jupyter-client.mjs";
import * as metrics from "./lib/metrics.mjs";
import { measurePlacements, placementUnavailable } from "./lib/placement.mjs";
import { renderMarkdown } from "./lib/report.mjs";
import { summarize } from "./lib/stats.mjs";

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
};
const quick = flag("--quick");
const python = option("--python", "/usr/bin/python3");
const only = option("--only", "").split(",").filter(Boolean);
const wantGb = flag("--gb") || (!quick && !flag("--no-gb"));
const log = (text) => process.stderr.write(`${text}\n`);

const reps = quick
  ? {
      cold: 3,
      cli: 3,
      warmUpCalls: 500,
      warmRounds: 3,
      warmBatch: 30,
      manyCells: 2,
      image: 5,
      interrupt: 3,
      stdout: 2,
    }
  : {
      cold: 10,
      cli: 8,
      warmUpCalls: 3000,
      warmRounds: 10,
      warmBatch: 100,
      manyCells: 5,
      image: 15,
      interrupt: 8,
      stdout: 5,
    };

function describeMachine() {
  let pythonVersion = "?";
  try {
    pythonVersion = execFileSync(python, ["-c", "import sys; print(sys.version.split()[0])"])
      .toString()
      .trim();
  } catch {
    // reported as "?"
  }
  return {
    date: new Date().toISOString(),
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? "?",
    memoryGB: Math.round(os.totalmem() / 1024 ** 3),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    python: `${python} (${pythonVersion})`,
    loadAverage: os.loadavg().map((v) => Number(v.toFixed(2))),
    quick,
  };
}

async function main() {
  const machine = describeMachine();
  log(
    `evalkit bench: ${machine.cores} cores, Node ${machine.node}, Python ${machine.python}, load ${machine.loadAverage}`,
  );
  const cwd = mkdtempSync(join(os.tmpdir(), "evalkit-bench-"));
  process.env.EVALKIT_HOME ??= join(cwd, ".evalkit-home");
  const ctx = { python, cwd, reps, api: await loadEvalkit(), jupyter: undefined };

  const jupyter = new JupyterDriver(python);
  const missing = await jupyter.open();
  if (missing) {
    log(
      `baseline J skipped: Jupyter is not importable by ${python} (${missing}).\n` +
        "  Install it with: apt-get install -y python3-ipykernel python3-jupyter-client",
    );
  } else ctx.jupyter = jupyter;

  const results = {};
  const run = async (id, title, fn) => {
    if (only.length > 0 && !only.includes(id)) return;
    log(`- ${title}…`);
    const t0 = performance.now();
    results[id] = await fn();
    log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  };
  const summarizeAll = (samples) =>
    Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));

  try {
    await run("cold", "cold start to the first result of 1+1", async () =>
      summarizeAll(await metrics.coldStart(ctx)),
    );
    await run("jsCold", "JS kernel: cold start to the first result of 1+1", async () =>
      summarize(await jsColdStart(cwd, reps.cold)),
    );
    await run("jsWarm", "JS kernel: warm 1+1 round trip (JsKernel.execute)", async () =>
      summarize(await jsWarmRoundTrip(cwd, reps.warmRounds, 200)),
    );
    await run("cli", "cold start through the CLI", async () => summarizeAll(await metrics.coldStartCli(ctx)));
    const needsWarm = ["warm", "cells", "image", "interrupt"].some(
      (id) => only.length === 0 || only.includes(id),
    );
    if (needsWarm) {
      await metrics.openWarm(ctx);
      await run("warm", "warm 1+1 round trip", async () => summarizeAll(await metrics.warmRoundTrip(ctx)));
      await run("cells", "200-cell call", async () => summarizeAll(await metrics.manyCells(ctx)));
      await run("image", "1 MiB PNG display", async () => summarizeAll(await metrics.imageDisplay(ctx)));
      await run("interrupt", "interrupt a busy loop", async () => summarizeAll(await metrics.interrupt(ctx)));
      await metrics.closeWarm(ctx);
    }
    await run("stdout", "stdout throughput, 50 MiB", async () => {
      const { mbps, growth } = await metrics.stdoutThroughput(ctx);
      return { mbps: summarizeAll(mbps), growth: summarizeAll(growth) };
    });
    const noPlacement = placementUnavailable();
    if (noPlacement) log(`- warm 1+1 pinned alike: skipped (${noPlacement})`);
    else
      await run("placement", "warm 1+1 with host and interpreters pinned alike (informative)", async () =>
        measurePlacements(ctx.api, python, cwd, {
          rounds: reps.warmRounds,
          batch: 2 * reps.warmBatch,
          warmUp: reps.warmUpCalls,
        }),
      );
    if (wantGb && (only.length === 0 || only.includes("gb"))) {
      await run("gb", "host memory while printing 1 GiB", async () => {
        const trial = await metrics.stdoutTrial(ctx, "evalkit", 1024);
        return { mbps: trial.mbps, growthMB: trial.growthMB, peakRssMB: trial.peakRssMB };
      });
    }
  } finally {
    await metrics.closeWarm(ctx).catch(() => undefined);
    if (ctx.jupyter) await jupyter.close();
    rmSync(cwd, { recursive: true, force: true });
  }

  machine.loadAverageAfter = os.loadavg().map((v) => Number(v.toFixed(2)));
  const report = {
    machine,
    reps,
    jupyter: ctx.jupyter ? "ipykernel via jupyter_client" : `skipped: ${missing}`,
    results,
  };
  const markdown = renderMarkdown(report);
  if (!flag("--no-write") && (only.length === 0 || flag("--write"))) {
    writeFileSync(fileURLToPath(new URL("RESULTS.md", import.meta.url)), markdown);
    writeFileSync(
      fileURLToPath(new URL("results.json", import.meta.url)),
      `${JSON.stringify(report, null, 2)}\n`,
    );
  }
  process.stdout.write(flag("--json") ? `${JSON.stringify(report, null, 2)}\n` : markdown);
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
