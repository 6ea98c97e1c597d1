// `evalkit mcp` as an MCP client meets it: spawn, `initialize`, then one `eval` call of `1+1`, timed as a whole.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** Milliseconds from spawning `evalkit mcp` to the first eval result; the server is closed afterwards, untimed. */
export async function timeMcpFirstResult({ root, python, env, now }) {
  const t0 = now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["bin/evalkit.js", "mcp", "--python", python],
    cwd: root,
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "evalkit-bench", version: "0" });
  await client.connect(transport);
  const result = await client.callTool({ name: "eval", arguments: { cells: [{ code: "1+1" }] } });
  const ms = now() - t0;
  const text = result.content?.map((block) => block.text ?? "").join("");
  await client.close();
  if (result.isError || !/\b2\b/.test(text)) throw new Error(`mcp eval failed: ${text}`);
  return ms;
}
