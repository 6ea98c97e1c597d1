// `evalkit mcp --http` lets in only clients with the token, from allowed Hosts and Origins, and never shows it.
import { readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, textOf } from "./mcp-helpers.js";
import {
  closeHttpServers,
  connectClient,
  type HttpServer,
  request,
  startHttpServer,
} from "./mcp-http-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeHttpServers);

/** A raw request with a chosen Host header (fetch does not let one set it). */
function requestWithHost(server: HttpServer, host: string): Promise<number> {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: "/metrics",
        headers: { host, authorization: `Bearer ${server.token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once("error", reject);
    req.end();
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
});
const postHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("evalkit mcp --http access", () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttpServer({
      args: ["--max-sessions", "2", "--allowed-origin", "https://app.example.com"],
    });
  }, 60_000);

  it("refuses clients without the token or with a wrong one (401) and serves the right one", async () => {
    await expect(connectClient(server, { token: null })).rejects.toMatchObject({ code: 401 });
    await expect(connectClient(server, { token: `${server.token}x` })).rejects.toMatchObject({ code: 401 });
    const bare = await request(server, "/mcp", {
      method: "POST",
      body: initialize,
      headers: postHeaders,
      token: null,
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("Bearer");
    const { client, transport } = await connectClient(server);
    const result = (await client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "6 * 7" }] },
    })) as CallToolResult;
    expect(textOf(result)).toContain("42");
    await transport.terminateSession();
  }, 60_000);

  it("refuses a foreign browser Origin and a foreign Host (403), and takes loopback and allowed ones", async () => {
    await expect(connectClient(server, { headers: { Origin: "http://evil.example" } })).rejects.toMatchObject(
      {
        code: 403,
        message: expect.stringContaining("Origin is not allowed"),
      },
    );
    const foreign = await request(server, "/mcp", {
      method: "POST",
      body: initialize,
      headers: { ...postHeaders, origin: "http://attacker.localhost.evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(await requestWithHost(server, "evil.example:80")).toBe(403);
    expect(await requestWithHost(server, `localhost:${new URL(server.base).port}`)).toBe(200);
    const allowed = await request(server, "/metrics", { headers: { origin: "https://app.example.com" } });
    expect(allowed.status).toBe(200);
    const loopback = await request(server, "/metrics", { headers: { origin: "http://localhost:5173" } });
    expect(loopback.status).toBe(200);
    const metrics = await (await request(server, "/metrics")).text();
    expect(metrics).toMatch(/evalkit_mcp_refused_requests_total\{reason="forbidden_origin"\} [1-9]/);
    expect(metrics).toMatch(/evalkit_mcp_refused_requests_total\{reason="forbidden_host"\} [1-9]/);
  }, 60_000);

  it("answers /healthz without a token and /metrics only with it, counting sessions, calls and kernels", async () => {
    const health = await request(server, "/healthz", { token: null });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await request(server, "/metrics", { token: null })).status).toBe(401);
    const { client, transport } = await connectClient(server);
    await client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "import time; time.sleep(0.02)" }] },
    });
    const metrics = await (await request(server, "/metrics")).text();
    expect(metrics).toContain("# TYPE evalkit_mcp_cell_duration_seconds histogram");
    expect(metrics).toMatch(/^evalkit_mcp_sessions [1-9]/m);
    expect(metrics).toMatch(/^evalkit_mcp_kernels [1-9]/m);
    expect(metrics).toMatch(/^evalkit_mcp_calls_total\{outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^evalkit_mcp_cell_duration_seconds_count [1-9]/m);
    expect(metrics).toMatch(/^evalkit_mcp_refused_requests_total\{reason="unauthorized"\} [1-9]/m);
    expect(metrics).toMatch(/^evalkit_mcp_kernel_deaths_total 0$/m);
    await client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)" }] },
    });
    const afterDeath = await (await request(server, "/metrics")).text();
    expect(afterDeath).toMatch(/^evalkit_mcp_kernel_deaths_total 1$/m);
    await transport.terminateSession();
  }, 60_000);

  it("never prints the token it was given, and cells cannot read it from their environment", async () => {
    const { client, transport } = await connectClient(server);
    const result = (await client.callTool({
      name: "eval",
      arguments: {
        cells: [
          {
            code:
              "import os\nprint(sorted(k for k in os.environ if 'MCP' in k), open('/proc/self/environ','rb').read().count(b'" +
              server.token +
              "'))",
          },
        ],
      },
    })) as CallToolResult;
    expect(textOf(result)).toContain("[] 0");
    await transport.terminateSession();
    expect(server.stderr()).not.toContain(server.token);
  }, 60_000);

  it("refuses a session beyond --max-sessions with 503 and a clear error, and takes one once a session ends", async () => {
    const first = await connectClient(server);
    const second = await connectClient(server);
    const full = await request(server, "/mcp", { method: "POST", body: initialize, headers: postHeaders });
    expect(full.status).toBe(503);
    const body = (await full.json()) as { error: { message: string }; id: number };
    expect(body.error.message).toContain("server full: 2 MCP sessions are open (--max-sessions)");
    expect(body.id).toBe(1);
    await expect(connectClient(server)).rejects.toMatchObject({
      code: 503,
      message: expect.stringContaining("server full"),
    });
    await first.transport.terminateSession();
    const third = await connectClient(server);
    await third.transport.terminateSession();
    await second.transport.terminateSession();
  }, 60_000);

  it("answers a request naming an ended session with 404, which tells the client to start a new one", async () => {
    const { transport } = await connectClient(server);
    const id = transport.sessionId ?? "";
    await transport.terminateSession();
    const stale = await request(server, "/mcp", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      headers: { ...postHeaders, "mcp-session-id": id },
    });
    expect(stale.status).toBe(404);
  }, 60_000);
});

describe("evalkit mcp --http without a token given", () => {
  it("makes one in a file only its user can read, prints the file's path and not the token", async () => {
    const server = await startHttpServer({ noToken: true });
    const file = path.join(server.home, "mcp-token");
    expect(server.stderr()).toContain(`bearer token in ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, "utf8").trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(server.stderr()).not.toContain(token);
    const { client, transport } = await connectClient(server, { token });
    const result = (await client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "1 + 1" }] },
    })) as CallToolResult;
    expect(textOf(result)).toContain("2");
    await transport.terminateSession();
    expect(await server.stop()).toBe(0);
  }, 60_000);
});
