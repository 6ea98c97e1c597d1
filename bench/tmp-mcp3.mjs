import { timeMcpFirstResult } from "./lib/mcp-client.mjs";
import { nowMs } from "./lib/stats.mjs";

const env = { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" };
for (let i = 0; i < 6; i++)
  console.log(
    (await timeMcpFirstResult({ root: "/work/main", python: "/usr/bin/python3", env, now: nowMs })).toFixed(
      1,
    ),
  );
