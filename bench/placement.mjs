// `node bench/placement.mjs [python]`: warm `1+1` round trips of L, PythonKernel and the eval tool with the host
// and its interpreters pinned alike (taskset). `npm run bench` runs the same measurement into RESULTS.md.
import os from "node:os";
import { loadEvalkit } from "./lib/evalkit-client.mjs";
import { measurePlacements, placementUnavailable, renderPlacementTable } from "./lib/placement.mjs";

const python = process.argv[2] ?? "/usr/bin/python3";
const unavailable = placementUnavailable();
if (unavailable) {
  process.stderr.write(`placement: cannot pin processes here (${unavailable})\n`);
  process.exit(1);
}
const results = await measurePlacements(await loadEvalkit(), python, os.tmpdir());
console.log(`Warm \`1+1\` round trip, median of 10×200 interleaved calls (${python}):\n`);
console.log(renderPlacementTable(results));
