// The benchmark's metrics: each runs L, evalkit and J interleaved (A, B, C, A, B, C…) and returns raw samples.
import { execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BaselineRepl } from "./baseline-client.mjs";
import { BUSY_LOOP, MAKE_PNG, printMegabytes, TINY_STATEMENT, TRIVIAL } from "./cells.mjs";
import { assertOk, createBenchTool } from "./evalkit-client.mjs";
import { timeMcpFirstResult } from "./mcp-client.mjs";
import { nowMs, sleep } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BENCH = fileURLToPath(new URL("../", import.meta.url));

/** Runs `rounds` rounds; each round calls every runner once, in a rotating order. */
async function interleave(rounds, runners) {
  const names = Object.keys(runners);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const value = await runners[name](round);
      if (Array.isArray(value)) samples[name].push(...value);
      else samples[name].push(value);
    }
  }
  return samples;
}

function withJ(ctx, runners, jRunner) {
  if (ctx.jupyter) runners.J = jRunner;
  return runners;
}

/** Wall time of a child process from spawn to exit, in ms. */
function timeProcess(command, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    execFile(command, args, { cwd: ROOT, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(" ")} failed: ${err.message}\n${stderr}`));
      else if (stdout.trim() !== "2") reject(new Error(`unexpected output ${JSON.stringify(stdout)}`));
      else resolve(nowMs() - t0);
    });
  });
}

export async function coldStart(ctx) {
  const probe = await ctx.api.probeSandbox();
  const sandboxed = probe.ok
    ? {
        // The same cold start inside bubblewrap (docs/sandbox.md), compared with the unsandboxed one.
        "evalkit sandboxed": async () => {
          const t0 = nowMs();
          const tool = createBenchTool(ctx.api, ctx.python, ctx.cwd, { sandbox: true });
          assertOk(await tool.execute({ cells: [{ code: TRIVIAL }] }), "sandboxed cold start");
          const ms = nowMs() - t0;
          await tool.dispose();
          return ms;
        },
      }
    : {};
  if (!probe.ok) process.stderr.write(`  sandboxed cold start skipped: ${probe.reason}\n`);
  return interleave(
    ctx.reps.cold,
    withJ(
      ctx,
      {
        L: async () => {
          const t0 = nowMs();
          const repl = new BaselineRepl(ctx.python);
          await repl.start();
          await repl.execute(TRIVIAL);
          const ms = nowMs() - t0;
          await repl.stop();
          return ms;
        },
        evalkit: async () => {
          const t0 = nowMs();
          const tool = createBenchTool(ctx.api, ctx.python, ctx.cwd);
          assertOk(await tool.execute({ cells: [{ code: TRIVIAL }] }), "cold start");
          const ms = nowMs() - t0;
          await tool.dispose();
          return ms;
        },
        ...sandboxed,
      },
      async () => (await ctx.jupyter.call({ op: "cold" })).seconds * 1000,
    ),
  );
}

/**
 * Whole processes against L's (a Node script that spawns L, prints `1+1`, exits): `evalkit exec -c 1+1`, a Node
 * script on the library (import, createEvalTool, `1+1`, dispose, exit), and `evalkit mcp` from spawn through
 * `initialize` to the first eval result (the client lives in this process).
 */
export async function coldStartCli(ctx) {
  const env = { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" };
  return interleave(ctx.reps.cli, {
    L: () => timeProcess(process.execPath, [`${BENCH}cli-baseline.mjs`, ctx.python], env),
    evalkit: () =>
      timeProcess(process.execPath, ["bin/evalkit.js", "exec", "--python", ctx.python, "-c", TRIVIAL], env),
    lib: () => timeProcess(process.execPath, [`${BENCH}lib-cold.mjs`, ctx.python], env),
    mcp: () => timeMcpFirstResult({ root: ROOT, python: ctx.python, env, now: nowMs }),
  });
}

/** Warm kernels shared by the per-cell metrics; closed by closeWarm(). */
export async function openWarm(ctx) {
  const repl = new BaselineRepl(ctx.python);
  await repl.start();
  await repl.execute(TRIVIAL);
  const tool = createBenchTool(ctx.api, ctx.python, ctx.cwd);
  assertOk(await tool.execute({ cells: [{ code: TRIVIAL }] }), "warm-up");
  const kernel = new ctx.api.PythonKernel({ python: ctx.python, cwd: ctx.cwd });
  await kernel.start();
  await kernel.execute(TRIVIAL);
  if (ctx.jupyter) await ctx.jupyter.call({ op: "start" });
  ctx.warm = { repl, tool, kernel };
}

export async function closeWarm(ctx) {
  if (!ctx.warm) return;
  await ctx.warm.repl.stop();
  await ctx.warm.tool.dispose();
  await ctx.warm.kernel.shutdown();
  if (ctx.jupyter) await ctx.jupyter.call({ op: "stop" });
  ctx.warm = undefined;
}

async function repeat(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = nowMs();
    await fn();
    times.push(nowMs() - t0);
  }
  return times;
}

/** Untimed calls before a warm metric, the same for every implementation: "warm" means steady state, so
 * V8's optimising compiler (which needs a few thousand calls for evalkit's deeper stack) has done its work. */
async function warmUp(runners, calls) {
  for (const run of Object.values(runners)) for (let i = 0; i < calls; i++) await run();
}

export async function warmRoundTrip(ctx) {
  const { repl, tool, kernel } = ctx.warm;
  const n = ctx.reps.warmBatch;
  const cells = { cells: [{ code: TRIVIAL }] };
  await warmUp(
    {
      L: () => repl.execute(TRIVIAL),
      evalkit: () => tool.execute(cells),
      kernel: () => kernel.execute(TRIVIAL),
    },
    ctx.reps.warmUpCalls,
  );
  return interleave(
    ctx.reps.warmRounds,
    withJ(
      ctx,
      {
        L: () => repeat(n, () => repl.execute(TRIVIAL)),
        evalkit: () => repeat(n, async () => assertOk(await tool.execute(cells), "1+1")),
        "evalkit kernel": () => repeat(n, () => kernel.execute(TRIVIAL)),
      },
      async () => (await ctx.jupyter.call({ op: "exec", code: TRIVIAL, n })).times.map((s) => s * 1000),
    ),
  );
}

export async function manyCells(ctx) {
  const { repl, tool } = ctx.warm;
  const count = 200;
  const input = { cells: Array.from({ length: count }, () => ({ code: TINY_STATEMENT })) };
  await warmUp(
    { L: () => repl.execute(TINY_STATEMENT), evalkit: () => tool.execute(input) },
    Math.ceil(ctx.reps.warmUpCalls / count),
  );
  return interleave(
    ctx.reps.manyCells,
    withJ(
      ctx,
      {
        L: async () => {
          const t0 = nowMs();
          for (let i = 0; i < count; i++) await repl.execute(TINY_STATEMENT);
          return (nowMs() - t0) / count;
        },
        evalkit: async () => {
          const t0 = nowMs();
          assertOk(await tool.execute(input), "200 cells");
          return (nowMs() - t0) / count;
        },
      },
      async () => {
        const { times } = await ctx.jupyter.call({ op: "exec", code: TINY_STATEMENT, n: count });
        return (times.reduce((a, b) => a + b, 0) * 1000) / count;
      },
    ),
  );
}

export async function imageDisplay(ctx) {
  const { repl, tool } = ctx.warm;
  await repl.execute(MAKE_PNG);
  assertOk(await tool.execute({ cells: [{ code: MAKE_PNG }] }), "make png");
  if (ctx.jupyter) {
    await ctx.jupyter.call({ op: "exec", code: `${MAKE_PNG}\nfrom IPython.display import Image, display` });
  }
  const show = "display(Image(data=png))";
  return interleave(
    ctx.reps.image,
    withJ(
      ctx,
      {
        L: async () => {
          const t0 = nowMs();
          const { outputs } = await repl.execute("display_png(png)");
          if (outputs[0]?.type !== "display") throw new Error("L sent no display");
          return nowMs() - t0;
        },
        evalkit: async () => {
          const t0 = nowMs();
          const out = assertOk(await tool.execute({ cells: [{ code: show }] }), "image");
          if (!out.details.cells[0].outputs.some((o) => o.type === "display")) throw new Error("no display");
          return nowMs() - t0;
        },
      },
      async () => (await ctx.jupyter.call({ op: "exec", code: show })).times[0] * 1000,
    ),
  );
}

export async function interrupt(ctx) {
  const { repl, tool } = ctx.warm;
  const delay = 200;
  return interleave(
    ctx.reps.interrupt,
    withJ(
      ctx,
      {
        L: async () => {
          const done = repl.execute(BUSY_LOOP);
          await sleep(delay);
          const t0 = nowMs();
          repl.interrupt();
          await done;
          return nowMs() - t0;
        },
        evalkit: async () => {
          const controller = new AbortController();
          const done = tool.execute({ cells: [{ code: BUSY_LOOP }] }, { signal: controller.signal });
          await sleep(delay);
          const t0 = nowMs();
          controller.abort();
          const out = await done;
          const ms = nowMs() - t0;
          if (out.details.cells[0].status !== "cancelled")
            throw new Error(`status ${out.details.cells[0].status}`);
          return ms;
        },
      },
      async () => (await ctx.jupyter.call({ op: "interrupt", delay: delay / 1000 })).seconds * 1000,
    ),
  );
}

/** Runs bench/stdout-trial.mjs in a fresh Node process and returns its JSON line. */
export function stdoutTrial(ctx, impl, mb) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${BENCH}stdout-trial.mjs`, impl, String(mb), ctx.python], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`stdout trial ${impl} exited ${code}`));
      else resolve(JSON.parse(out.trim().split("\n").pop()));
    });
  });
}

export async function stdoutThroughput(ctx) {
  const mb = 50;
  if (ctx.jupyter) await ctx.jupyter.call({ op: "start" });
  const trials = await interleave(
    ctx.reps.stdout,
    withJ(
      ctx,
      {
        L: () => stdoutTrial(ctx, "L", mb),
        evalkit: () => stdoutTrial(ctx, "evalkit", mb),
        "evalkit kernel": () => stdoutTrial(ctx, "kernel", mb),
      },
      async () => {
        const { times, bytes } = await ctx.jupyter.call({ op: "exec", code: printMegabytes(mb) });
        return { mbps: bytes / (1024 * 1024) / times[0] };
      },
    ),
  );
  if (ctx.jupyter) await ctx.jupyter.call({ op: "stop" });
  const mbps = {};
  const growth = {};
  for (const [name, list] of Object.entries(trials)) {
    mbps[name] = list.map((t) => t.mbps);
    if (list[0]?.growthMB !== undefined) growth[name] = list.map((t) => t.growthMB);
  }
  return { mbps, growth };
}
