import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { ensureBuilt } from "../helpers/build.js";
import { DEBIAN_PYTHON, TEST_PYTHON } from "../helpers/interpreters.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export { DEBIAN_PYTHON, TEST_PYTHON };

/** Builds dist/ (what bin/evalkit.js runs) unless it is newer than every source. */
export async function buildCli(): Promise<void> {
  await ensureBuilt();
}

export interface StartedServer {
  client: Client;
  transport: StdioClientTransport;
  /** The server process. */
  pid: number;
  home: string;
  stderr: () => string;
  close: () => Promise<void>;
}

export interface StartOptions {
  python?: string;
  args?: string[];
  /** Declared client capabilities (e.g. `{ sampling: {} }`). */
  capabilities?: ClientCapabilities;
  /** Registers handlers on the client before it connects. */
  setup?: (client: Client) => void;
  env?: Record<string, string>;
}

const started: StartedServer[] = [];

/** Starts `evalkit mcp` with a temp EVALKIT_HOME and connects a client; closed by {@link closeServers}. */
export async function startServer(options: StartOptions = {}): Promise<StartedServer> {
  const home = mkdtempSync(path.join(os.tmpdir(), "evalkit-mcp-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(ROOT, "bin", "evalkit.js"),
      "mcp",
      "--python",
      options.python ?? TEST_PYTHON,
      ...(options.args ?? []),
    ],
    cwd: ROOT,
    env: { ...stringEnv(process.env), EVALKIT_HOME: home, ...(options.env ?? {}) },
    stderr: "pipe",
  });
  let stderrText = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrText += chunk.toString("utf8");
  });
  const client = new Client(
    { name: "evalkit-test", version: "1.0.0" },
    options.capabilities ? { capabilities: options.capabilities } : {},
  );
  options.setup?.(client);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("the server process has no pid");
  const server: StartedServer = {
    client,
    transport,
    pid,
    home,
    stderr: () => stderrText,
    close: async () => {
      await client.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
  started.push(server);
  return server;
}

/** Closes every server started by {@link startServer}. */
export async function closeServers(): Promise<void> {
  await Promise.all(started.splice(0).map((server) => server.close()));
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Calls the eval tool with one or more cells. */
export async function callEval(
  client: Client,
  cells: { code: string; language?: string; title?: string; timeout?: number; reset?: boolean }[],
  options: Parameters<Client["callTool"]>[2] = {},
): Promise<CallToolResult> {
  return (await client.callTool(
    { name: "eval", arguments: { cells } },
    undefined,
    options,
  )) as CallToolResult;
}

/** The text blocks of a result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}
