import { timeMcpFirstResult } from "./lib/mcp-client.mjs";
import { nowMs } from "./lib/stats.mjs";

const variants = {
  full: { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" },
  noCA: (() => {
    const e = { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" };
    delete e.NODE_EXTRA_CA_CERTS;
    return e;
  })(),
  noPyU: (() => {
    const e = { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" };
    delete e.PYTHONUNBUFFERED;
    delete e.PYTHONDONTWRITEBYTECODE;
    return e;
  })(),
};
const res = {};
for (let i = 0; i < 8; i++)
  for (const [k, env] of Object.entries(variants))
    (res[k] ??= []).push(
      await timeMcpFirstResult({ root: "/work/main", python: "/usr/bin/python3", env, now: nowMs }),
    );
for (const [k, v] of Object.entries(res)) {
  v.sort((a, b) => a - b);
  console.log(k, v[4].toFixed(1), v.map((x) => x.toFixed(0)).join(" "));
}
