// The one guard for values that cross from a kernel into the host (display data and metadata, bridge arguments)
// and back (bridge replies): bounded in depth and size, walked without recursion, so no value can throw here.

/**
 * Deepest nesting kept from a kernel's value. Real display data (Plotly, Vega, widget state) stays under 30
 * levels; 100 leaves room while every recursive step of the host (redaction, JSON.stringify) stays far from
 * the stack's end.
 */
export const MAX_VALUE_DEPTH = 100;

/** Most containers (objects and arrays) in one bridge reply: a shared-reference tree can grow exponentially. */
export const MAX_VALUE_NODES = 1_000_000;

/** What stands in for a part nested deeper than {@link MAX_VALUE_DEPTH}. */
export const TOO_DEEP_MARKER = `[evalkit: nested deeper than ${MAX_VALUE_DEPTH} levels, left out]`;

/** A frame line this short cannot hold a value deeper than the bound (each level costs two bracket bytes). */
export const SHALLOW_LINE_CHARS = 2 * MAX_VALUE_DEPTH;

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/**
 * The deepest container nesting of `value`, counting stops at `limit + 1` (so a cycle ends the walk), and the
 * containers seen, stopping past `maxNodes`. Iterative: any depth is measured without growing the stack.
 */
function measure(value: unknown, limit: number, maxNodes: number): { depth: number; nodes: number } {
  if (!isContainer(value)) return { depth: 0, nodes: 0 };
  const stack: [object, number][] = [[value, 1]];
  let deepest = 0;
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    nodes++;
    if (depth > deepest) deepest = depth;
    if (deepest > limit || nodes > maxNodes) break;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return { depth: deepest, nodes };
}

/** A copy of `value` with every container deeper than `limit` replaced by the marker (recursion stays under it). */
function cutDeeper(value: unknown, limit: number, depth: number): unknown {
  if (!isContainer(value)) return value;
  if (depth > limit) return TOO_DEEP_MARKER;
  if (Array.isArray(value)) return value.map((item) => cutDeeper(item, limit, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = cutDeeper(item, limit, depth + 1);
  return out;
}

/**
 * `value` as the host may keep it: itself when it nests at most `limit` levels (no copy), else a copy whose
 * deeper parts are {@link TOO_DEEP_MARKER}. For values decoded from JSON (no cycles, size bounded by the line).
 */
export function boundDepth<T>(value: T, limit = MAX_VALUE_DEPTH): T {
  if (!isContainer(value)) return value;
  if (measure(value, limit, Number.POSITIVE_INFINITY).depth <= limit) return value;
  return cutDeeper(value, limit, 1) as T;
}

/**
 * Why `value` cannot travel to a kernel as JSON, or undefined when it can: nested deeper than the bound (a cycle
 * too), too many containers, or JSON.stringify itself refusing it (a BigInt, a throwing `toJSON`).
 */
export function whyNotEncodable(value: unknown, limit = MAX_VALUE_DEPTH): string | undefined {
  const { depth, nodes } = measure(value, limit, MAX_VALUE_NODES);
  if (nodes > MAX_VALUE_NODES)
    return `it holds more than ${MAX_VALUE_NODES.toLocaleString("en-US")} objects and arrays`;
  if (depth > limit) return `it nests deeper than ${limit} levels (or refers to itself)`;
  try {
    JSON.stringify(value);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
