// The eval tool as an MCP server: tool `eval`, artifacts as resources, completion() over sampling, stdio lifecycle.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { EvalkitError } from "../errors.js";
import { packageVersion } from "../runtime/package-root.js";
import type { EvalTool } from "../tool/eval-tool.js";
import { registerArtifactResources, ServerArtifacts } from "./artifact-resources.js";
import { createLazyJsonSchemaValidator } from "./elicitation-validator.js";
import { runEvalToolCall } from "./eval-call.js";
import { invalidParams } from "./protocol-error.js";
import { createSamplingCompletion } from "./sampling-completion.js";
import { type EvalMcpServerOptions, resolveMcpServerOptions } from "./server-options.js";
import type { ServerTool } from "./server-tool.js";
import { BoundedStdioTransport } from "./stdio-transport.js";

export type { EvalMcpServerOptions } from "./server-options.js";

/** Internal: what the HTTP server's sessions change (stdio uses none of it). */
export interface McpServerInternals {
  /** Told about each `eval` call (the metrics). */
  onCallStart?(): void;
  /** The result, or undefined when the call failed or was cancelled. */
  onCallEnd?(result: CallToolResult | undefined): void;
  /** Only this server's own artifacts can be read (tenants sharing one store). */
  isOwnArtifactsOnly?: boolean;
}

/** An MCP server around one eval tool: one session (state kept between calls) per connection. */
export interface EvalMcpServer {
  /** The SDK server (handlers registered); connect it to any transport. */
  readonly server: Server;
  /** The eval tool, created on first use, once the client's capabilities are known. */
  getTool(): Promise<EvalTool>;
  connect(transport: Transport): Promise<void>;
  /** Closes the connection; every kernel is shut down before `closed` resolves. */
  close(): Promise<void>;
  /** Resolves when the connection has closed and the tool is disposed. */
  readonly closed: Promise<void>;
}

const INSTRUCTIONS =
  "evalkit runs code cells in a persistent Python (and JavaScript) interpreter through the `eval` tool: " +
  "variables, imports and files stay between calls until a cell sets `reset: true`. Outputs too long for the " +
  "tool's text are stored in full and named `artifact://<id>`; read them as resources " +
  "(`artifact://<id>?offset=N&limit=N`) or from a cell with `output(id)`.";

/**
 * Creates the server; throws EvalkitError INVALID_INPUT for bad options (a bad cwd, EVALKIT_PY=maybe...).
 * `prepared` (internal: `evalkit mcp`) is a tool made, and its kernel started, before this module loaded.
 */
export function createEvalMcpServer(
  options: EvalMcpServerOptions = {},
  prepared?: ServerTool,
  internals: McpServerInternals = {},
): EvalMcpServer {
  // `evalkit mcp` parsed the same options once already, to make its tool early: that value is the server's too.
  const config = prepared?.config ?? resolveMcpServerOptions(options);
  const server = new Server(
    { name: "evalkit", title: "evalkit", version: packageVersion() },
    {
      capabilities: { tools: {}, resources: { listChanged: true } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: createLazyJsonSchemaValidator(),
    },
  );
  // The tool stack loads while the client initializes, so `initialize` is answered without waiting for it.
  const toolModule = prepared ? undefined : import("./server-tool.js");
  toolModule?.catch(() => undefined);
  let serverTool: ServerTool | undefined = prepared;
  const link = {
    canSample: () => server.getClientCapabilities()?.sampling !== undefined,
    sample: createSamplingCompletion(server, {
      maxTokens: config.samplingMaxTokens,
      timeoutMs: config.samplingTimeoutMs,
    }),
  };
  prepared?.bind(link);
  const artifacts = new ServerArtifacts();
  let isClosing = false;
  let backendsChecked: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const getServerTool = async (): Promise<ServerTool> => {
    if (serverTool === undefined) {
      const { ServerTool } = await (toolModule as Promise<typeof import("./server-tool.js")>);
      if (isClosing) throw new EvalkitError("DISPOSED", "the MCP server is shutting down");
      serverTool ??= new ServerTool(config);
      serverTool.bind(link);
    }
    if (isClosing) throw new EvalkitError("DISPOSED", "the MCP server is shutting down");
    return serverTool;
  };
  const getTool = async (): Promise<EvalTool> => (await getServerTool()).tool;

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const current = await getTool();
    // The description and schema advertise only backends that work (a missing Python leaves JS alone).
    backendsChecked ??= current.checkBackends().then(
      () => undefined,
      () => undefined,
    );
    await backendsChecked;
    const definition: Tool = {
      name: current.name,
      title: "Run Python / JavaScript cells",
      description: current.description,
      inputSchema: current.inputSchema as Tool["inputSchema"],
      annotations: {
        title: "Run code cells",
        readOnlyHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    };
    return { tools: [definition] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name !== "eval") {
      throw invalidParams(`unknown tool ${JSON.stringify(name)} (this server has: eval)`);
    }
    internals.onCallStart?.();
    let result: CallToolResult | undefined;
    try {
      result = await runEvalToolCall(await getTool(), args, {
        signal: extra.signal,
        progressToken: extra._meta?.progressToken,
        heartbeatMs: config.progressHeartbeatMs,
        sendProgress: (params) => {
          extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined);
        },
      });
    } finally {
      internals.onCallEnd?.(result);
    }
    if (artifacts.noteResult(result)) server.sendResourceListChanged().catch(() => undefined);
    return result;
  });

  registerArtifactResources(server, config.artifactsDir, artifacts, internals.isOwnArtifactsOnly === true);

  server.onclose = () => {
    if (isClosing) return;
    isClosing = true;
    const disposing = serverTool?.tool.dispose() ?? Promise.resolve();
    disposing.then(resolveClosed, resolveClosed);
  };

  return {
    server,
    getTool,
    connect: async (transport) => {
      await server.connect(transport);
      // Its kernel starts while the client initializes (a tool made before this module already started it).
      if (prepared === undefined)
        getServerTool().then(
          (current) => current.warm(),
          () => undefined,
        );
    },
    close: async () => {
      await server.close();
      server.onclose?.();
      await closed;
    },
    closed,
  };
}

/** Options of {@link runMcpServer}: the server's, plus the streams (default: the process's stdio). */
export interface RunMcpServerOptions extends EvalMcpServerOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Close cleanly on SIGTERM/SIGINT/SIGHUP (default true when using the process's stdio). */
  handleSignals?: boolean;
  /** Largest JSON-RPC message accepted from the client (default 32 MiB); a bigger one gets an error answer. */
  maxMessageBytes?: number;
}

/**
 * Serves MCP on stdio until the client closes stdin (or a termination signal arrives), then shuts every kernel
 * down and resolves.
 */
export async function runMcpServer(options: RunMcpServerOptions = {}, prepared?: ServerTool): Promise<void> {
  const {
    stdin = process.stdin,
    stdout = process.stdout,
    handleSignals,
    maxMessageBytes,
    ...serverOptions
  } = options;
  const isProcessStdio = stdout === process.stdout;
  const mcp = createEvalMcpServer(serverOptions, prepared);
  if (isProcessStdio) {
    // stdout is the protocol channel: a stray console.log from anywhere must not corrupt it.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
  }
  const transport = new BoundedStdioTransport(
    stdin,
    stdout,
    maxMessageBytes !== undefined ? { maxMessageBytes } : {},
  );
  const onEnd = () => {
    void mcp.close();
  };
  stdin.once("end", onEnd);
  stdin.once("close", onEnd);
  stdout.once("error", onEnd);
  const signals: NodeJS.Signals[] = (handleSignals ?? isProcessStdio) ? ["SIGTERM", "SIGINT", "SIGHUP"] : [];
  for (const signal of signals) process.once(signal, onEnd);
  try {
    await mcp.connect(transport);
    await mcp.closed;
  } finally {
    stdin.off("end", onEnd);
    stdin.off("close", onEnd);
    stdout.off("error", onEnd);
    for (const signal of signals) process.off(signal, onEnd);
  }
}
