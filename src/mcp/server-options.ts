// Options of the MCP server: their shape, validation naming the option, and the eval tool options they imply.
import * as z from "zod";
import { lazySchema, PARSE_ONCE } from "../contracts/lazy-schema.js";
import { EvalkitError } from "../errors.js";
import { resolveArtifactDir } from "../output/artifacts/artifact-ids.js";
import { checkSandboxLayout } from "../runtime/sandbox-argv.js";
import { firstIssueField, formatZodIssues } from "../tool/format-issues.js";
import { type EvalToolOptions, type ResolvedToolOptions, resolveToolOptions } from "../tool/tool-options.js";

/** Options of {@link createEvalMcpServer}; every option is optional. */
export interface EvalMcpServerOptions {
  /** Python interpreter (path or command); default: EVALKIT_PYTHON, venvs, managed venv, PATH. */
  python?: string;
  /** Working directory of the kernels (default: the server's current directory). */
  cwd?: string;
  /** Command prefix the interpreter runs through: `"docker exec -i box"` or `["ssh", "host"]`. */
  launcher?: string | string[];
  /** Where full outputs are stored and served from as `artifact://` resources (default `$EVALKIT_HOME/artifacts`). */
  artifactsDir?: string;
  /** Further eval tool options (timeouts, output limits, env...). `handlers` are the server's: sampling. */
  tool?: Omit<EvalToolOptions, "handlers" | "python" | "cwd" | "launcher" | "artifactsDir">;
  /** `max_tokens` asked of the client when a cell calls `completion()` (default 4096). */
  samplingMaxTokens?: number;
  /** How long a `completion()` waits for the client's sampling answer, in ms (default 10 minutes). */
  samplingTimeoutMs?: number;
  /** While a cell runs without output, a progress notification every this many ms (default 2000). */
  progressHeartbeatMs?: number;
  /** Environment EVALKIT_HOME, EVALKIT_PY and EVALKIT_JS are read from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Options after validation and defaults. */
export interface ResolvedMcpServerOptions {
  /** The eval tool's settings, parsed once here; the server's tool is made from this value, not parsed again. */
  toolSettings: ResolvedToolOptions;
  artifactsDir: string;
  samplingMaxTokens: number;
  samplingTimeoutMs: number;
  progressHeartbeatMs: number;
}

export const DEFAULT_SAMPLING_MAX_TOKENS = 4096;
export const DEFAULT_SAMPLING_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_PROGRESS_HEARTBEAT_MS = 2000;
/**
 * Stream characters kept per cell in `structuredContent` (the tool's default is 1 MiB). Some MCP clients hand
 * structured content to the model, so it stays modest; the full output is always in the artifact.
 */
export const MCP_RETAIN_STREAM_CHARS = 64 * 1024;

const optionsSchema = lazySchema(() =>
  z.strictObject({
    python: z.string().min(1).optional(),
    cwd: z.string().min(1).optional(),
    launcher: z.union([z.string(), z.array(z.string())]).optional(),
    artifactsDir: z.string().min(1).optional(),
    tool: z.record(z.string(), z.unknown()).optional(),
    samplingMaxTokens: z.number().int().positive().optional(),
    samplingTimeoutMs: z.number().int().positive().optional(),
    progressHeartbeatMs: z.number().int().positive().optional(),
    env: z.record(z.string(), z.union([z.string(), z.undefined()])).optional(),
  }),
);

/** Validates the options (INVALID_INPUT naming the option, tool options included) and fills in defaults. */
export function resolveMcpServerOptions(options: EvalMcpServerOptions = {}): ResolvedMcpServerOptions {
  const parsed = optionsSchema().safeParse(options ?? {}, PARSE_ONCE);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, options);
    throw new EvalkitError("INVALID_INPUT", `invalid MCP server options: ${problems.join("; ")}`, {
      field: firstIssueField(parsed.error.issues),
      problems,
    });
  }
  const artifactsDir = options.artifactsDir ?? resolveArtifactDir(options.env ?? process.env);
  const extra = options.tool ?? {};
  const toolOptions: EvalToolOptions = {
    ...extra,
    output: { retainStreamChars: MCP_RETAIN_STREAM_CHARS, ...(extra.output ?? {}) },
    artifactsDir,
    ...(options.env !== undefined && extra.flagsEnv === undefined ? { flagsEnv: options.env } : {}),
    ...(options.python !== undefined ? { python: options.python } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.launcher !== undefined ? { launcher: options.launcher } : {}),
  };
  // Parsed once, here: a bad cwd or EVALKIT_PY=maybe fails at start-up rather than on the first call. The tool
  // itself is made later from this value (server-tool.ts), once the client's capabilities are known.
  const resolved = resolveToolOptions(toolOptions);
  // A sandboxed server in a cwd the sandbox refuses (/proc, the home...) would fail every call: it does not start.
  if (resolved.sandbox !== undefined) {
    checkSandboxLayout({
      sandbox: resolved.sandbox,
      cwd: resolved.cwd,
      home: resolved.env.HOME ?? process.env.HOME,
    });
  }
  return {
    toolSettings: resolved,
    artifactsDir: resolved.artifactsDir ?? artifactsDir,
    samplingMaxTokens: options.samplingMaxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS,
    samplingTimeoutMs: options.samplingTimeoutMs ?? DEFAULT_SAMPLING_TIMEOUT_MS,
    progressHeartbeatMs: options.progressHeartbeatMs ?? DEFAULT_PROGRESS_HEARTBEAT_MS,
  };
}
