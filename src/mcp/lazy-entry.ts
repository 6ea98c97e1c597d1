// The MCP server as the package's main export offers it: the server module (and the MCP SDK under it, ~60 ms
// to load) is imported on the first call, so `import "evalkit"` for the eval tool alone stays light.
import type { McpHttpServer, McpHttpServerOptions, RunMcpHttpServerOptions } from "./http-server.js";
import type { EvalMcpServer, EvalMcpServerOptions, RunMcpServerOptions } from "./server.js";

/**
 * Creates the MCP server around one eval tool (see docs/mcp.md, "Embedding the server"). Asynchronous because
 * it loads the MCP SDK on first use; throws EvalkitError INVALID_INPUT for bad options.
 */
export async function createEvalMcpServer(options: EvalMcpServerOptions = {}): Promise<EvalMcpServer> {
  const server = await import("./server.js");
  return server.createEvalMcpServer(options);
}

/** Serves MCP on stdio until the client closes stdin (or a termination signal), then shuts every kernel down. */
export async function runMcpServer(options: RunMcpServerOptions = {}): Promise<void> {
  const server = await import("./server.js");
  return server.runMcpServer(options);
}

/** Starts the MCP server over Streamable HTTP (`evalkit mcp --http`); resolves once it listens. */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const server = await import("./http-server.js");
  return server.startMcpHttpServer(options);
}

/** Serves MCP over Streamable HTTP until SIGTERM/SIGINT (or `signal`), then ends every session and resolves. */
export async function runMcpHttpServer(options: RunMcpHttpServerOptions): Promise<void> {
  const server = await import("./http-server.js");
  return server.runMcpHttpServer(options);
}
