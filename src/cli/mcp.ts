// `evalkit mcp`: parse the flags and serve the eval tool over MCP on stdio until the client disconnects, or
// over Streamable HTTP (`--http`) to many clients until SIGTERM/SIGINT.
import { isEvalkitError } from "../errors.js";
import { resolveMcpServerOptions } from "../mcp/server-options.js";
import { ServerTool } from "../mcp/server-tool.js";
import { formatUsageError, parseCommandArgs, readNumberOption, UsageError } from "./args.js";
import { JUPYTER_OPTIONS, jupyterUsage, readJupyterArgs } from "./jupyter-args.js";
import { RUNTIME_OPTIONS, readRuntimeArgs, runtimeUsage } from "./runtime-args.js";
import { readSandboxArgs, SANDBOX_OPTIONS, SANDBOX_USAGE } from "./sandbox-args.js";

export const MCP_USAGE = `usage: evalkit mcp [--python PATH] [--cwd DIR] [--launcher PREFIX] [--sandbox ...] [--jupyter URL]
       evalkit mcp --http [HOST:]PORT [--root DIR] [--token-file FILE] [--max-sessions N] ...

Serves the eval tool over the Model Context Protocol on stdin/stdout (for MCP clients such as Claude
Desktop, Claude Code, Cursor or VS Code). One session per connection: state is kept between calls.
Full outputs are MCP resources (artifact://<id>); completion() in cells uses the client's sampling.

  --python PATH        Python interpreter (default: EVALKIT_PYTHON, venvs, managed venv, PATH)
  --cwd DIR            working directory of the kernels (default: the current directory; not with --http)
  --launcher PREFIX    run the interpreter through a command prefix, e.g. "docker exec -i box"
${runtimeUsage(23)}${SANDBOX_USAGE}${jupyterUsage(23)}Streamable HTTP for remote clients (one isolated session each, own kernels, jobs, artifacts and directory):
  --http [HOST:]PORT   serve MCP at http://HOST:PORT/mcp (host 127.0.0.1 unless given; port 0: any free port)
  --root DIR           sessions work in DIR/sessions/<id> (default: the current directory)
  --token-file FILE    the bearer token clients must send (else EVALKIT_MCP_TOKEN, else one is made and
                       stored in $EVALKIT_HOME/mcp-token, mode 0600; its path is printed, never the token)
  --allowed-host NAME  another Host name clients use (repeatable; loopback names are always allowed)
  --allowed-origin URL another browser Origin allowed (repeatable; loopback origins are always allowed)
  --session-ttl SEC    end sessions idle this long (default 3600; 0: never)
  --max-sessions N     refuse new sessions beyond N open ones with 503 (default 100)
  -h, --help           this help

environment: EVALKIT_PY / EVALKIT_JS (0/1: expose the Python / JavaScript backend), EVALKIT_SANDBOX, EVALKIT_PYTHON,
EVALKIT_HOME (artifacts, managed venv; default ~/.evalkit), EVALKIT_JUPYTER_URL / EVALKIT_JUPYTER_TOKEN, EVALKIT_MCP_TOKEN (--http). Logs go to stderr; on
stdio, stdout is the protocol. GET /healthz needs no token; GET /metrics (Prometheus) does.
See docs/mcp.md for client configuration and deployment.
`;

const OPTIONS = {
  python: { type: "string" },
  cwd: { type: "string" },
  launcher: { type: "string" },
  ...RUNTIME_OPTIONS,
  ...SANDBOX_OPTIONS,
  http: { type: "string" },
  root: { type: "string" },
  "token-file": { type: "string" },
  "allowed-host": { type: "string", multiple: true },
  "allowed-origin": { type: "string", multiple: true },
  "session-ttl": { type: "string" },
  "max-sessions": { type: "string" },
  ...JUPYTER_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

const HTTP_ONLY_FLAGS = [
  "root",
  "token-file",
  "allowed-host",
  "allowed-origin",
  "session-ttl",
  "max-sessions",
] as const;

/** Runs `evalkit mcp` with `argv` (after the subcommand); resolves to the exit status once the client is gone. */
export async function runMcp(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      process.stdout.write(MCP_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const jupyter = readJupyterArgs(values);
    const runtimes = readRuntimeArgs(values);
    const sandboxOptions = {
      ...readSandboxArgs(values),
      ...(jupyter !== undefined ? { jupyter } : {}),
      ...(runtimes.length > 0 ? { runtimes } : {}),
    };
    if (values.http !== undefined) return await runHttp(values, sandboxOptions);
    const httpOnly = HTTP_ONLY_FLAGS.find((flag) => values[flag] !== undefined);
    if (httpOnly !== undefined) throw new UsageError(`--${httpOnly} needs --http`);
    const options = {
      ...(Object.keys(sandboxOptions).length > 0 ? { tool: sandboxOptions } : {}),
      ...(values.python !== undefined ? { python: values.python } : {}),
      ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
      ...(values.launcher !== undefined ? { launcher: values.launcher } : {}),
    };
    // The kernel starts first and boots while Node loads the MCP SDK (~40–60 ms here) and the client
    // initializes: a client's first eval then finds it ready.
    const prepared = new ServerTool(resolveMcpServerOptions(options));
    prepared.warm();
    // Bundled, the server module initialises synchronously (~8 ms with the SDK) as soon as it is imported; one
    // turn of the event loop first lets the warm-up's promise chain reach the kernel's spawn.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      const { runMcpServer } = await import("../mcp/server.js");
      await runMcpServer(options, prepared);
    } finally {
      await prepared.tool.dispose();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(formatUsageError("mcp", err.message));
      return 2;
    }
    if (isEvalkitError(err)) {
      process.stderr.write(`evalkit mcp: ${err.message} [${err.code}]\n`);
      return err.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw err;
  }
  // Every kernel is shut down by now; a handle someone else left open must not keep a dead server alive.
  setTimeout(() => process.exit(), 1000).unref();
  return 0;
}

type McpValues = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];

/** `evalkit mcp --http`: serves until SIGTERM/SIGINT; every session and kernel is gone when it returns. */
async function runHttp(
  values: McpValues,
  sandboxOptions: ReturnType<typeof readSandboxArgs> & { jupyter?: ReturnType<typeof readJupyterArgs> },
): Promise<number> {
  if (values.cwd !== undefined) {
    throw new UsageError(
      "--cwd does not combine with --http: each session works in --root DIR/sessions/<id>",
    );
  }
  const ttl = readNumberOption("--session-ttl", values["session-ttl"]);
  if (ttl !== undefined && ttl < 0) throw new UsageError("--session-ttl: expected 0 or more seconds");
  const maxSessions = readNumberOption("--max-sessions", values["max-sessions"], { integer: true });
  if (maxSessions !== undefined && maxSessions < 1)
    throw new UsageError("--max-sessions: expected 1 or more");
  const { runMcpHttpServer } = await import("../mcp/http-server.js");
  const env = { ...process.env };
  // The token stays in this process's memory only: nothing started later (kernels, their tools) inherits it.
  delete process.env.EVALKIT_MCP_TOKEN;
  await runMcpHttpServer({
    listen: values.http as string,
    env,
    ...(Object.keys(sandboxOptions).length > 0 ? { tool: sandboxOptions } : {}),
    ...(values.python !== undefined ? { python: values.python } : {}),
    ...(values.launcher !== undefined ? { launcher: values.launcher } : {}),
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(values["token-file"] !== undefined ? { tokenFile: values["token-file"] } : {}),
    ...(values["allowed-host"] !== undefined ? { allowedHosts: values["allowed-host"] } : {}),
    ...(values["allowed-origin"] !== undefined ? { allowedOrigins: values["allowed-origin"] } : {}),
    ...(ttl !== undefined ? { sessionTtlSec: ttl } : {}),
    ...(maxSessions !== undefined ? { maxSessions } : {}),
  });
  // Every kernel is shut down by now (or the grace ran out); a stray handle must not keep the process alive.
  setTimeout(() => process.exit(), 1000).unref();
  return 0;
}
