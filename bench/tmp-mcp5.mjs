import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const env = { ...process.env, EVALKIT_PY: "1", EVALKIT_JS: "0" };
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "/tmp/prof/trace.mjs", "bin/evalkit.js", "mcp", "--python", "/usr/bin/python3"],
    cwd: "/work/main",
    env,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "b", version: "0" });
  await client.connect(transport);
  const t1 = performance.now();
  await client.callTool({ name: "eval", arguments: { cells: [{ code: "1+1" }] } });
  const t2 = performance.now();
  await client.close();
  await new Promise((r) => setTimeout(r, 300));
  console.log("init", (t1 - t0).toFixed(1), "first", (t2 - t0).toFixed(1), "| server:", err.trim());
}
