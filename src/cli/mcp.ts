// `evalkit mcp`: parse the flags and serve the eval tool over MCP on stdio until the client disconnects.
import { isEvalkitError } from "../errors.js";
import { resolveMcpServerOptions } from "../mcp/server-options.js";
import { ServerTool } from "../mcp/server-tool.js";
import { formatUsageError, parseCommandArgs, UsageError } from "./args.js";
import { JUPYTER_OPTIONS, jupyterUsage, readJupyterArgs } from "./jupyter-args.js";
import { readSandboxArgs, SANDBOX_OPTIONS, SANDBOX_USAGE } from "./sandbox-args.js";

export const MCP_USAGE = `usage: evalkit mcp [--python PATH] [--cwd DIR] [--launcher PREFIX] [--sandbox ...] [--jupyter URL]

Serves the eval tool over the Model Context Protocol on stdin/stdout (for MCP clients such as Claude
Desktop, Claude Code, Cursor or VS Code). One session per connection: state is kept between calls.
Full outputs are MCP resources (artifact://<id>); completion() in cells uses the client's sampling.

  --python PATH        Python interpreter (default: EVALKIT_PYTHON, venvs, managed venv, PATH)
  --cwd DIR            working directory of the kernels (default: the current directory)
  --launcher PREFIX    run the interpreter through a command prefix, e.g. "docker exec -i box"
${SANDBOX_USAGE}${jupyterUsage(23)}  -h, --help           this help

environment: EVALKIT_PY / EVALKIT_JS (0/1: expose the Python / JavaScript backend), EVALKIT_SANDBOX, EVALKIT_PYTHON,
EVALKIT_HOME (artifacts, managed venv; default ~/.evalkit), EVALKIT_JUPYTER_URL / EVALKIT_JUPYTER_TOKEN. Logs go to stderr; stdout is the protocol.
See docs/mcp.md for client configuration.
`;

const OPTIONS = {
  python: { type: "string" },
  cwd: { type: "string" },
  launcher: { type: "string" },
  ...SANDBOX_OPTIONS,
  ...JUPYTER_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

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
    const toolOptions = { ...readSandboxArgs(values), ...(jupyter !== undefined ? { jupyter } : {}) };
    const options = {
      ...(Object.keys(toolOptions).length > 0 ? { tool: toolOptions } : {}),
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
