import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dir = process.argv[2];
for (let i = 0; i < 6; i++) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(dir ? ["--cpu-prof", "--cpu-prof-interval", "100", `--cpu-prof-dir=${dir}${i}`] : []),
      "bin/evalkit.js",
      "mcp",
      "--python",
      "/usr/bin/python3",
    ],
    cwd: "/work/main",
    stderr: "ignore",
  });
  const client = new Client({ name: "b", version: "0" });
  await client.connect(transport);
  const t1 = performance.now();
  const result = await client.callTool({ name: "eval", arguments: { cells: [{ code: "1+1" }] } });
  console.log("init", (t1 - t0).toFixed(1), "first", (performance.now() - t0).toFixed(1));
  await client.close();
}
