// Starts real `evalkit mcp --http 127.0.0.1:0` servers and connects the SDK's Streamable HTTP client to them.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { ROOT, TEST_PYTHON } from "./mcp-helpers.js";

export interface HttpServer {
  /** `http://127.0.0.1:<port>/mcp` as the server printed it. */
  url: string;
  /** The base URL (`http://127.0.0.1:<port>`). */
  base: string;
  token: string;
  root: string;
  home: string;
  process: ChildProcess;
  stderr: () => string;
  /** Ends the server with SIGTERM and waits for its exit. */
  stop: () => Promise<number | null>;
}

export interface HttpServerOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Pass no EVALKIT_MCP_TOKEN (the server makes one). */
  noToken?: boolean;
}

const servers: HttpServer[] = [];
const clients: Client[] = [];

/** Starts `evalkit mcp --http 127.0.0.1:0` with a fresh root and EVALKIT_HOME; resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<HttpServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), "evalkit-mcp-http-"));
  const home = path.join(root, "home");
  mkdirSync(home);
  const token = randomBytes(24).toString("hex");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  delete env.EVALKIT_MCP_TOKEN;
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, "bin", "evalkit.js"),
      "mcp",
      "--http",
      "127.0.0.1:0",
      "--python",
      TEST_PYTHON,
      "--root",
      root,
      ...(options.args ?? []),
    ],
    {
      cwd: root,
      env: {
        ...env,
        EVALKIT_HOME: home,
        ...(options.noToken ? {} : { EVALKIT_MCP_TOKEN: token }),
        ...options.env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${stderr}`)), 30_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      resolve(match[1]);
    };
    child.stderr?.on("data", onData);
    child.once("exit", () => reject(new Error(`the server exited: ${stderr}`)));
  });
  const server: HttpServer = {
    url,
    base: url.replace(/\/mcp$/, ""),
    token,
    root,
    home,
    process: child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
  servers.push(server);
  return server;
}

/** Connects an SDK client with the server's token (or `token`), plus any transport options. */
export async function connectClient(
  server: HttpServer,
  options: {
    token?: string | null;
    headers?: Record<string, string>;
  } & StreamableHTTPClientTransportOptions = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const { token, headers, ...transportOptions } = options;
  const bearer = token === undefined ? server.token : token;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    ...transportOptions,
    requestInit: {
      headers: { ...(bearer !== null ? { Authorization: `Bearer ${bearer}` } : {}), ...(headers ?? {}) },
    },
  });
  const client = new Client({ name: "evalkit-http-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** Closes every client and stops every server these helpers started; fails if a server outlives SIGTERM. */
export async function closeHttpServers(): Promise<void> {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const server of servers.splice(0)) {
    await server.stop();
    rmSync(server.root, { recursive: true, force: true });
  }
}

/** Waits until none of `pids` is alive (zombies excluded). */
export function waitForExit(pids: number[], timeoutMs = 10_000): Promise<boolean> {
  return waitFor(() => pids.every((pid) => !isProcessAlive(pid)), timeoutMs);
}

/** An authorized request to the server (`fetch` with the bearer token unless `token` is null). */
export function request(
  server: HttpServer,
  pathname: string,
  init: RequestInit & { token?: string | null } = {},
): Promise<Response> {
  const { token, headers, ...rest } = init;
  const bearer = token === undefined ? server.token : token;
  return fetch(`${server.base}${pathname}`, {
    ...rest,
    headers: { ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {}), ...(headers as object) },
  });
}
