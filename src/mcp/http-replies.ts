// Small HTTP replies of the MCP HTTP server: JSON-RPC errors with a status, and a bounded JSON body reader.
import type http from "node:http";

/** Writes a JSON-RPC error as the whole response (the shape the SDK's transport uses for its own refusals). */
export function writeJsonRpcError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }));
}

/**
 * Reads a POST body of at most `limit` bytes and parses it as JSON. On a body too large (413) or not JSON
 * (400, JSON-RPC parse error) it answers the request itself and resolves to undefined.
 */
export async function readJsonBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  limit: number,
): Promise<{ value: unknown } | undefined> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > limit) {
    writeJsonRpcError(res, 413, -32600, `request too large: ${declared} bytes, over the limit of ${limit}`);
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      writeJsonRpcError(res, 413, -32600, `request too large: over the limit of ${limit} bytes`);
      req.resume();
      return undefined;
    }
    chunks.push(buffer);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    writeJsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
    return undefined;
  }
}
