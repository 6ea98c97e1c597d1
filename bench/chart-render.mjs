// What the first chart costs a process: one session kernel runs a plain display, then a Vega-Lite chart and an
// SVG twice each; the first chart's extra time over the second is the renderers' load (resvg, dist/charts.cjs).
// Usage: npm run build && node bench/chart-render.mjs [python] [runs]
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const python = process.argv[2] ?? "/usr/bin/python3";
const runs = Number(process.argv[3] ?? 5);

const CHILD = `
import { createEvalTool } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
const tool = createEvalTool({ python: ${JSON.stringify(python)}, js: false });
const spec = '{"data": {"values": [{"a": "A", "b": 2}, {"a": "B", "b": 5}]}, "mark": "bar", "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}';
const chart = "display({'application/vnd.vegalite.v5+json': " + spec + "}, raw=True)";
const svg = "SVG('<svg xmlns=" + JSON.stringify("http://www.w3.org/2000/svg") + " width=" + JSON.stringify("300") + " height=" + JSON.stringify("200") + "><circle cx=" + JSON.stringify("50") + " cy=" + JSON.stringify("50") + " r=" + JSON.stringify("40") + "/></svg>')";
const plain = "display({'text/plain': 'no chart'}, raw=True)";
const time = async (code) => { const t = performance.now(); await tool.execute({ cells: [{ code }] }); return performance.now() - t; };
await time(plain);
const out = { plain: await time(plain), chartFirst: await time(chart), chartSecond: await time(chart), svg: await time(svg), plainAfter: await time(plain) };
await tool.dispose();
console.log(JSON.stringify(out));
`;

const rows = [];
for (let i = 0; i < runs; i++) {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(child.stderr);
  rows.push(JSON.parse(child.stdout.trim()));
}
const median = (key) => rows.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
const keys = ["plain", "chartFirst", "chartSecond", "svg", "plainAfter"];
console.log(
  `median of ${runs} processes (ms): ${keys.map((k) => `${k} ${median(k).toFixed(1)}`).join(", ")}`,
);
console.log(
  `first chart adds ${(median("chartFirst") - median("chartSecond")).toFixed(1)} ms once per process`,
);
