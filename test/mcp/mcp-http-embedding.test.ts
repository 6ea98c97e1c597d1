// The library's startMcpHttpServer / runMcpHttpServer serve the same HTTP MCP in-process and shut down cleanly.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { runMcpHttpServer, startMcpHttpServer } from "../../src/index.js";
import { waitFor } from "../helpers/processes.js";
import { TEST_PYTHON, textOf } from "./mcp-helpers.js";

const root = mkdtempSync(path.join(os.tmpdir(), "evalkit-mcp-http-embed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const token = "embedded-token-0123456789abcdef";

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "embed-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("startMcpHttpServer", () => {
  it("serves a session on a free port and ends it on close", async () => {
    const lines: string[] = [];
    const server = await startMcpHttpServer({
      token,
      root,
      python: TEST_PYTHON,
      artifactsDir: path.join(root, "artifacts"),
      log: (line) => lines.push(line),
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.token).toEqual({ source: "option" });
    const client = await connect(server.url);
    const result = (await client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "import os\nprint(os.getcwd())" }] },
    })) as CallToolResult;
    expect(textOf(result)).toContain(path.join(root, "sessions"));
    expect(server.sessionCount).toBe(1);
    await server.close();
    expect(server.sessionCount).toBe(0);
    expect(lines.some((line) => /session \S+ ended \(server shutting down\)/.test(line))).toBe(true);
    await client.close();
  }, 60_000);
});

describe("runMcpHttpServer", () => {
  it("prints where it listens and resolves once its signal aborts", async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const running = runMcpHttpServer({
      token,
      root,
      python: TEST_PYTHON,
      handleSignals: false,
      signal: controller.signal,
      log: (line) => lines.push(line),
    });
    expect(await waitFor(() => lines.some((line) => line.startsWith("listening on")), 10_000)).toBe(true);
    const url = /listening on (\S+)/.exec(lines.join("\n"))?.[1] ?? "";
    const client = await connect(url);
    controller.abort();
    await running;
    await expect(fetch(url.replace("/mcp", "/healthz"))).rejects.toThrow();
    await client.close();
  }, 60_000);
});
