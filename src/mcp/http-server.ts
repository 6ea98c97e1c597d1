// `evalkit mcp --http`: MCP over Streamable HTTP at /mcp for many remote clients, one isolated session each,
// behind a bearer token and Host/Origin allow-lists, with /healthz and /metrics for operators.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { EvalkitError } from "../errors.js";
import { checkRequestOrigin, createTokenCheck, isLoopbackHost, resolveToken } from "./http-auth.js";
import { HttpMetrics } from "./http-metrics.js";
import { type McpHttpServerOptions, resolveHttpOptions } from "./http-options.js";
import { readJsonBody, writeJsonRpcError } from "./http-replies.js";
import { HttpSessionRegistry } from "./http-sessions.js";

export type { McpHttpServerOptions } from "./http-options.js";

/** A running HTTP server. */
export interface McpHttpServer {
  /** `http://host:port/mcp`, with the port actually bound (for port 0). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Where the token came from; for a generated one, the file holding it. Never the token itself. */
  readonly token: { source: "env" | "file" | "generated" | "option"; file?: string };
  readonly metrics: HttpMetrics;
  /** Sessions open now. */
  readonly sessionCount: number;
  /** Stops listening, ends every session (cancels cells, shuts kernels down) and closes every connection. */
  close(): Promise<void>;
}

/** Starts serving; resolves once listening. Throws EvalkitError INVALID_INPUT for bad options or a busy port. */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const config = resolveHttpOptions(options);
  const log = options.log ?? ((line: string) => process.stderr.write(`evalkit mcp: ${line}\n`));
  const env = options.env ?? process.env;
  const resolved =
    options.token !== undefined
      ? { token: options.token, source: "option" as const }
      : resolveToken(env, options.tokenFile);
  const isAuthorized = createTokenCheck(resolved.token);
  const metrics = new HttpMetrics();
  mkdirSync(path.join(config.root, "sessions"), { recursive: true, mode: 0o700 });
  const registry = new HttpSessionRegistry({
    root: config.root,
    serverOptions: config.serverOptions,
    maxSessions: config.maxSessions,
    sessionTtlMs: config.sessionTtlMs,
    eventBudgetBytes: config.eventBudgetBytes,
    maxRequestBytes: config.maxRequestBytes,
    metrics,
    log,
  });
  const policy = { allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : '{"status":"ok"}\n');
      return;
    }
    const refusal = checkRequestOrigin(policy, req.headers.host, header(req.headers.origin));
    if (refusal !== undefined) {
      metrics.refuse(refusal === "host" ? "forbidden_host" : "forbidden_origin");
      writeJsonRpcError(
        res,
        403,
        -32000,
        `Forbidden: this ${refusal === "host" ? "Host" : "Origin"} is not allowed`,
      );
      return;
    }
    if (!isAuthorized(header(req.headers.authorization))) {
      metrics.refuse("unauthorized");
      writeJsonRpcError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <token>", null, {
        "www-authenticate": 'Bearer realm="evalkit"',
      });
      return;
    }
    if (url.pathname === "/metrics" && req.method === "GET") {
      res.writeHead(200, {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
        "cache-control": "no-store",
      });
      res.end(metrics.render());
      return;
    }
    if (url.pathname !== "/mcp") {
      writeJsonRpcError(res, 404, -32000, "Not found: MCP is served at /mcp");
      return;
    }
    const sessionId = header(req.headers["mcp-session-id"]);
    if (sessionId !== undefined) {
      const session = registry.get(sessionId);
      if (session === undefined) {
        metrics.refuse("unknown_session");
        writeJsonRpcError(res, 404, -32001, "Session not found (it ended or expired): initialize a new one");
        return;
      }
      const done = registry.track(session, req.method === "POST");
      res.once("close", done);
      if (req.method !== "POST") {
        await session.transport.handleRequest(req, res);
        return;
      }
      // Read here: the transport's own reading goes through web streams (it made a warm call's server side about
      // twice as slow).
      const posted = await readJsonBody(req, res, config.maxRequestBytes);
      if (posted !== undefined) await session.transport.handleRequest(req, res, posted.value);
      return;
    }
    if (req.method !== "POST") {
      writeJsonRpcError(res, 400, -32000, "Bad Request: no Mcp-Session-Id header");
      return;
    }
    const body = await readJsonBody(req, res, config.maxRequestBytes);
    if (body === undefined) return;
    const messages = Array.isArray(body.value) ? body.value : [body.value];
    if (!messages.some((message) => isInitializeRequest(message))) {
      writeJsonRpcError(res, 400, -32000, "Bad Request: no Mcp-Session-Id header; send initialize first");
      return;
    }
    if (registry.isClosed) {
      writeJsonRpcError(res, 503, -32000, "the server is shutting down", null, { connection: "close" });
      return;
    }
    const session = await registry.create(randomUUID());
    if (session === undefined) {
      metrics.refuse("server_full");
      const id = (messages[0] as { id?: string | number } | undefined)?.id ?? null;
      writeJsonRpcError(
        res,
        503,
        -32000,
        `server full: ${config.maxSessions} MCP sessions are open (--max-sessions); try again later`,
        id,
        { "retry-after": "5" },
      );
      return;
    }
    const done = registry.track(session, true);
    res.once("close", done);
    await session.transport.handleRequest(req, res, body.value);
    // An initialize the transport refused (bad version, bad params) leaves no session behind.
    if (res.statusCode >= 400) void registry.end(session.id, "initialize refused");
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) writeJsonRpcError(res, 500, -32603, "Internal error");
      else res.destroy();
    });
  });
  // Long calls stream for minutes: no request timeout; idle keep-alive sockets still close.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new EvalkitError("INVALID_INPUT", `cannot listen on ${config.host}:${config.port}: ${err.message}`, {
          field: "http",
        }),
      ),
    );
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  if (!isLoopbackHost(address.address)) {
    log(
      `listening on ${shownHost}, which is not loopback: the bearer token and the cells cross the network in clear text. ` +
        "TLS belongs in a reverse proxy in front of this server (docs/mcp.md, Deployment).",
    );
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    host: address.address,
    port: address.port,
    token:
      resolved.source === "generated"
        ? { source: "generated", file: resolved.file }
        : { source: resolved.source },
    metrics,
    get sessionCount() {
      return registry.size;
    },
    close: () => {
      closing ??= (async () => {
        server.close();
        await registry.endAll("server shutting down");
        server.closeAllConnections();
      })();
      return closing;
    },
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Options of {@link runMcpHttpServer}: the server's, plus signal handling and the shutdown grace. */
export interface RunMcpHttpServerOptions extends McpHttpServerOptions {
  /** End cleanly on SIGTERM/SIGINT (default true). */
  handleSignals?: boolean;
  /** Longest wait, in ms, for sessions to end on shutdown before giving up on them (default 10 s). */
  shutdownGraceMs?: number;
  /** Aborting it shuts the server down like a signal. */
  signal?: AbortSignal;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/**
 * Serves until SIGTERM or SIGINT, prints the bound URL (and where a generated token is) on stderr, then ends
 * every session within the grace and resolves.
 */
export async function runMcpHttpServer(options: RunMcpHttpServerOptions): Promise<void> {
  const {
    handleSignals = true,
    shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS,
    signal: abort,
    ...serverOptions
  } = options;
  const log = serverOptions.log ?? ((line: string) => process.stderr.write(`evalkit mcp: ${line}\n`));
  const server = await startMcpHttpServer({ ...serverOptions, log });
  // The address comes last: tests and scripts read stderr up to it.
  if (server.token.source === "generated")
    log(`bearer token in ${server.token.file} (readable by this user only)`);
  log(`listening on ${server.url}`);
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const signals: NodeJS.Signals[] = handleSignals ? ["SIGTERM", "SIGINT"] : [];
  for (const signal of signals) process.once(signal, stop);
  const onAbort = () => stop("aborted");
  if (abort?.aborted) onAbort();
  abort?.addEventListener("abort", onAbort, { once: true });
  try {
    const signal = await stopped;
    log(`${signal}: ending ${server.sessionCount} session(s)`);
    const grace = new Promise<void>((resolve) => setTimeout(resolve, shutdownGraceMs).unref());
    await Promise.race([server.close(), grace]);
  } finally {
    for (const signal of signals) process.off(signal, stop);
    abort?.removeEventListener("abort", onAbort);
  }
}
