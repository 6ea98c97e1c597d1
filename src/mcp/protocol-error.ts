// JSON-RPC errors a handler throws: the wire message is ours alone, so clients show `MCP error -32602:` once.
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

/** MCP's error code for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * An error the SDK turns into a JSON-RPC error response. The SDK's own McpError puts `MCP error <code>: ` into
 * its message, which the SDK sends as is, and the client's McpError prefixes it again; this one does not.
 */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** Bad request parameters (-32602). */
export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, message, data);
}
