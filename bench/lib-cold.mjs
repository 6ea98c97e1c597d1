// The library's whole-process cold start: a Node process imports evalkit's main export (the built package),
// runs `1+1` through createEvalTool, disposes and exits. The twin of bench/cli-baseline.mjs.
import { createEvalTool } from "../dist/index.js";

const tool = createEvalTool({ python: process.argv[2] ?? "/usr/bin/python3", js: false });
const { details } = await tool.execute({ cells: [{ code: "1+1" }] });
process.stdout.write(`${details.cells[0]?.text.trim()}\n`);
await tool.dispose();
