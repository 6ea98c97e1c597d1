// Options of `evalkit mcp --http` (the HTTP server's own; the sessions' servers take the usual MCP options):
// their shape, validation naming the option, and defaults.
import { statSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { lazySchema, PARSE_ONCE } from "../contracts/lazy-schema.js";
import { EvalkitError } from "../errors.js";
import { firstIssueField, formatZodIssues } from "../tool/format-issues.js";
import { DEFAULT_EVENT_BUDGET_BYTES } from "./event-store.js";
import { type EvalMcpServerOptions, resolveMcpServerOptions } from "./server-options.js";

/** Options of {@link startMcpHttpServer}: where to listen, who may connect, limits; plus every session's options. */
export interface McpHttpServerOptions extends Omit<EvalMcpServerOptions, "cwd"> {
  /** `[HOST:]PORT` (`8080`, `127.0.0.1:0`, `[::1]:8080`); host 127.0.0.1 unless given. Default `127.0.0.1:0`. */
  listen?: string;
  /** Sessions work in `<root>/sessions/<id>` (default: the current directory). */
  root?: string;
  /** The bearer token itself (embedding); else `tokenFile`, `EVALKIT_MCP_TOKEN`, or one made under EVALKIT_HOME. */
  token?: string;
  /** A file holding the bearer token. */
  tokenFile?: string;
  /** Further Host header names accepted (loopback names always are). */
  allowedHosts?: string[];
  /** Browser origins accepted (loopback origins always are; requests without Origin are not from browsers). */
  allowedOrigins?: string[];
  /** Idle sessions end after this many seconds (default 3600; 0: never). */
  sessionTtlSec?: number;
  /** Most sessions open at once; `initialize` beyond it gets 503 (default 100). */
  maxSessions?: number;
  /** Bytes of messages each session keeps for streams to resume (default 4 MiB; kept at most 10 minutes). */
  eventBudgetBytes?: number;
  /** Largest POST body (default 32 MiB). */
  maxRequestBytes?: number;
  /** Where the server's lines go (default stderr, prefixed `evalkit mcp: `). */
  log?: (line: string) => void;
}

/** The options after validation and defaults. */
export interface ResolvedHttpOptions {
  host: string;
  port: number;
  root: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  sessionTtlMs: number;
  maxSessions: number;
  eventBudgetBytes: number;
  maxRequestBytes: number;
  serverOptions: Omit<EvalMcpServerOptions, "cwd">;
}

export const DEFAULT_SESSION_TTL_SEC = 3600;
export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

const HTTP_KEYS = [
  "listen",
  "root",
  "token",
  "tokenFile",
  "allowedHosts",
  "allowedOrigins",
  "sessionTtlSec",
  "maxSessions",
  "eventBudgetBytes",
  "maxRequestBytes",
  "log",
] as const;

const httpSchema = lazySchema(() =>
  z.object({
    listen: z.string().min(1).optional(),
    root: z.string().min(1).optional(),
    token: z.string().min(16, "must be at least 16 characters").optional(),
    tokenFile: z.string().min(1).optional(),
    allowedHosts: z.array(z.string().min(1)).optional(),
    allowedOrigins: z.array(z.string().min(1)).optional(),
    sessionTtlSec: z.number().nonnegative().optional(),
    maxSessions: z.number().int().positive().optional(),
    eventBudgetBytes: z.number().int().positive().optional(),
    maxRequestBytes: z.number().int().positive().optional(),
    log: z.function().optional(),
  }),
);

/** Validates (INVALID_INPUT naming the option) and fills in defaults; the sessions' options are checked too. */
export function resolveHttpOptions(options: McpHttpServerOptions): ResolvedHttpOptions {
  const parsed = httpSchema().safeParse(options, PARSE_ONCE);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, options);
    throw new EvalkitError("INVALID_INPUT", `invalid MCP HTTP options: ${problems.join("; ")}`, {
      field: firstIssueField(parsed.error.issues),
      problems,
    });
  }
  const { host, port } = parseListenAddress(options.listen ?? "127.0.0.1:0");
  const root = path.resolve(options.root ?? process.cwd());
  if (!isDirectory(root)) {
    throw new EvalkitError("INVALID_INPUT", `root: ${JSON.stringify(root)} is not an existing directory`, {
      field: "root",
    });
  }
  const serverOptions: Record<string, unknown> = { ...options };
  for (const key of HTTP_KEYS) delete serverOptions[key];
  if (options.env?.EVALKIT_MCP_TOKEN !== undefined) {
    // The sessions read their flags from this environment; the token has no business there.
    const { EVALKIT_MCP_TOKEN: _token, ...rest } = options.env;
    serverOptions.env = rest;
  }
  // Fail at start-up on options no session could use (the root stands in for a session's directory).
  resolveMcpServerOptions({ ...(serverOptions as EvalMcpServerOptions), cwd: root });
  return {
    host,
    port,
    root,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    sessionTtlMs: Math.round((options.sessionTtlSec ?? DEFAULT_SESSION_TTL_SEC) * 1000),
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    eventBudgetBytes: options.eventBudgetBytes ?? DEFAULT_EVENT_BUDGET_BYTES,
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    serverOptions: serverOptions as Omit<EvalMcpServerOptions, "cwd">,
  };
}

/** `8080` → 127.0.0.1:8080; `0.0.0.0:8080`; `[::1]:8080`. Throws INVALID_INPUT (field `http`). */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (match === null || !(port >= 0 && port <= 65535)) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `--http: expected [HOST:]PORT (8080, 127.0.0.1:8080, [::1]:8080), got ${JSON.stringify(text)}`,
      { field: "http" },
    );
  }
  const host = match[1]?.replace(/^\[|\]$/g, "") ?? "127.0.0.1";
  return { host, port };
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
