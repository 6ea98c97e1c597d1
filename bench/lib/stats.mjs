// Summaries of timing samples: median with min and max, and the ratios the report prints.

/** Median, min, max and count of a list of numbers. */
export function summarize(samples) {
  const sorted = [...samples].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/** a/b of two medians, NaN when either is missing. */
export function ratio(a, b) {
  if (!a || !b || !Number.isFinite(a.median) || !Number.isFinite(b.median) || b.median === 0)
    return Number.NaN;
  return a.median / b.median;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function nowMs() {
  return performance.now();
}
