// JS kernel figures: cold start to the first result of 1+1 (spawn, ready, one cell) and warm 1+1 round trips.
import { pathToFileURL } from "node:url";

const DIST_INDEX = new URL("../../dist/index.js", import.meta.url);

async function loadJsKernel() {
  const { JsKernel } = await import(pathToFileURL(DIST_INDEX.pathname).href);
  return JsKernel;
}

/** Milliseconds from `new JsKernel()` to the result of its first `1+1`, `runs` fresh kernels. */
export async function jsColdStart(cwd, runs) {
  const JsKernel = await loadJsKernel();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const kernel = new JsKernel({ cwd });
    const outcome = await kernel.execute("1+1");
    samples.push(performance.now() - t0);
    if (outcome.status !== "ok") throw new Error(`JS cold start: cell ended ${outcome.status}`);
    await kernel.shutdown();
  }
  return samples;
}

/** Milliseconds per warm `1+1` through JsKernel.execute, as the median of `rounds` batches of `batch`. */
export async function jsWarmRoundTrip(cwd, rounds, batch) {
  const JsKernel = await loadJsKernel();
  const kernel = new JsKernel({ cwd });
  try {
    for (let i = 0; i < 200; i++) await kernel.execute("1+1");
    const samples = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) await kernel.execute("1+1");
      samples.push((performance.now() - t0) / batch);
    }
    return samples;
  } finally {
    await kernel.shutdown();
  }
}
