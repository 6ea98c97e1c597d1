// Shared set-up for MCP tests: build the CLI once, start `node bin/evalkit.js mcp` under the SDK's own client.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { DEBIAN_PYTHON, TEST_PYTHON } from "../helpers/interpreters.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export { DEBIAN_PYTHON, TEST_PYTHON };

const BUILD_LOCK = path.join(os.tmpdir(), "evalkit-mcp-test-build.lock");

/** Newest modification time of the TypeScript sources. */
function newestSourceMs(dir = path.join(ROOT, "src")): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function isBuildFresh(): boolean {
  const marker = path.join(ROOT, "dist", "mcp", "server.js");
  return existsSync(marker) && statSync(marker).mtimeMs >= newestSourceMs();
}

/**
 * Compiles src/ into dist/ (what bin/evalkit.js runs) unless dist/ is newer than every source. The MCP test
 * files run in parallel, so one builds while the others wait on a lock. Type errors elsewhere still emit,
 * so only a missing server file fails the set-up.
 */
export async function buildCli(): Promise<void> {
  const deadline = Date.now() + 150_000;
  while (!isBuildFresh()) {
    try {
      mkdirSync(BUILD_LOCK);
    } catch {
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 120_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another test's build");
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
    } catch {
      // tsc exits non-zero on type errors but still writes dist/.
    } finally {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
    break;
  }
  if (!existsSync(path.join(ROOT, "dist", "mcp", "server.js"))) {
    throw new Error("the build did not produce dist/mcp/server.js");
  }
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
