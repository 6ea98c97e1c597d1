// Watches a kernel's resident memory (Linux /proc) and reports once it passes a limit, Buffers included.
import { readFileSync } from "node:fs";

const PAGE_BYTES = 4096;

/** Resident bytes of `pid`, or undefined where /proc cannot tell. */
export function residentBytes(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/statm`, "latin1").split(" ");
    const pages = Number(fields[1]);
    return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls every `intervalMs` (default 50 ms: a Buffer loop gains ~1 GB/s, so this overshoots the limit by at most
 * a few tens of MB) and calls `onExceed` once. Returns the function that stops watching.
 */
export function watchMemory(
  pid: number,
  limitBytes: number,
  onExceed: (rssBytes: number) => void,
  intervalMs = 50,
): () => void {
  if (process.platform !== "linux") return () => undefined;
  const timer = setInterval(() => {
    const rss = residentBytes(pid);
    if (rss === undefined || rss <= limitBytes) return;
    clearInterval(timer);
    onExceed(rss);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
