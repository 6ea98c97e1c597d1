// Whether a JS kernel's node needs `--max-old-space-size` on its command line, or would pick that heap limit itself.
import { createRequire } from "node:module";

/**
 * Any V8 flag on node's command line changes V8's flag hash, and V8 then rejects the code cache node embeds for its
 * built-in modules: every built-in the runner loads (net, streams, vm…) and every one a cell loads later (http…) is
 * compiled from source, 3–5× slower (~9 ms of each JS kernel's start here). So the flag is left out when node's own
 * default is the same limit, which it is with the default options on a machine with 16 GB or more.
 */

/**
 * What V8 adds to the old generation for the young one (3 semi-spaces of 16 MiB on 64-bit), the same with and
 * without the flag in Node 20. Where it differs, the limits below never match and the flag is kept.
 */
const YOUNG_GENERATION_MB = 48;
/** Flags (node's command line or NODE_OPTIONS) that change V8's heap sizes. */
const HEAP_SIZING = /space|heap|semi|generation/i;

const requireLazily = createRequire(import.meta.url);
let hostHeapLimit: number | undefined;

/** The host's V8 heap limit in bytes; node:v8 loads on the first JS kernel launch, not with the package. */
function heapLimitOfHost(): number {
  hostHeapLimit ??= (requireLazily("node:v8") as typeof import("node:v8")).getHeapStatistics()
    .heap_size_limit;
  return hostHeapLimit;
}

export interface HeapFlagQuestion {
  /** The kernel's node executable. */
  node: string;
  /** The old-generation limit asked for, in MB. */
  maxHeapMb: number;
  /** The kernel's environment (its NODE_OPTIONS apply to the kernel's node too). */
  env: Record<string, string | undefined>;
  /** Node runs behind a launcher that may be another machine (ssh, docker exec): its default is unknown. */
  isRemote: boolean;
}

/**
 * True unless the kernel's node would choose exactly `maxHeapMb` by itself: the same executable as the host's, on
 * the same machine, and neither the host nor the kernel has a flag that sizes the heap, so the host's own limit is
 * node's default here.
 */
export function needsHeapFlag(question: HeapFlagQuestion): boolean {
  if (question.isRemote || question.node !== process.execPath) return true;
  const hostFlags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  if (HEAP_SIZING.test(hostFlags) || HEAP_SIZING.test(question.env.NODE_OPTIONS ?? "")) return true;
  return heapLimitOfHost() !== (question.maxHeapMb + YOUNG_GENERATION_MB) * 1024 * 1024;
}
