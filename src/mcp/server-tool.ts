// The MCP server's eval tool, made without the MCP SDK: `evalkit mcp` starts its kernel before the SDK loads.
import type { HostBridgeHandler } from "../session/bridge-handlers.js";
import { createEvalToolFromSettings, type EvalTool } from "../tool/eval-tool.js";
import type { ResolvedMcpServerOptions } from "./server-options.js";

/** What the tool needs of the connected server, bound once the server exists. */
export interface ServerToolLink {
  /** True once the client declared sampling in `initialize`. */
  canSample(): boolean;
  /** completion() answered through the client's sampling. */
  sample: HostBridgeHandler;
}

/**
 * One connection's eval tool. The tool exists before the server (and before `initialize`), so completion()
 * asks, when a cell calls it, whether the client declared sampling; without it cells get the usual
 * "no handler" error.
 */
export class ServerTool {
  readonly tool: EvalTool;
  private link: ServerToolLink | undefined;

  /** The server's options as parsed once (a server given this tool uses them instead of parsing its own again). */
  readonly config: ResolvedMcpServerOptions;

  constructor(config: ResolvedMcpServerOptions) {
    this.config = config;
    this.tool = createEvalToolFromSettings({
      ...config.toolSettings,
      handlers: {
        completion: (params, context) => {
          const link = this.link;
          if (link === undefined || !link.canSample()) {
            throw new Error(
              "no host handler registered for completion() (the MCP client offers no sampling)",
            );
          }
          return link.sample(params, context);
        },
      },
    });
  }

  bind(link: ServerToolLink): void {
    this.link = link;
  }

  /**
   * Starts the kernel a first `eval` would use while the client initializes (Node loading the MCP SDK, the
   * handshake), so the first result does not wait for it.
   */
  warm(): void {
    void this.tool.warm();
  }
}
