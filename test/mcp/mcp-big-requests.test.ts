// Big requests get an answer: over the SDK transport's 10 MiB a request is still served (up to 32 MiB), and over
// evalkit's own limit the client gets a JSON-RPC error while the server, and the session's state, live on.
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRequestId } from "../../src/mcp/stdio-transport.js";
import { isProcessAlive } from "../helpers/processes.js";
import { buildCli, callEval, closeServers, type StartedServer, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

const MiB = 1024 * 1024;

describe("evalkit mcp and requests larger than the SDK's 10 MiB stdio buffer", () => {
  let server: StartedServer;
  beforeAll(async () => {
    server = await startServer();
    const setup = await callEval(server.client, [{ code: "kept = 'state survives'" }]);
    expect(setup.isError).toBeFalsy();
  }, 60_000);

  it("accepts a 12 MiB request (over the SDK's buffer, under evalkit's 32 MiB limit)", async () => {
    const code = `payload = "${"a".repeat(12 * MiB)}"\nprint(len(payload))`;
    const result = await callEval(server.client, [{ code }], { timeout: 120_000 });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(String(12 * MiB));
  }, 120_000);

  it("answers a 40 MiB request with a JSON-RPC error naming the limit, and serves the next call", async () => {
    const code = `"${"b".repeat(40 * MiB)}"`;
    const error = await callEval(server.client, [{ code }], { timeout: 120_000 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32600);
    expect((error as McpError).message).toMatch(
      /request too large: \d+ bytes, over evalkit's limit of 32 MiB/,
    );
    expect(isProcessAlive(server.pid)).toBe(true);
    const next = await callEval(server.client, [{ code: "print(kept)" }]);
    expect(next.isError).toBeFalsy();
    expect(textOf(next)).toContain("state survives");
  }, 120_000);
});

describe("findRequestId", () => {
  it("reads the id the SDK client writes last, or one written first, and nothing else", () => {
    expect(findRequestId('{"method":"tools/call","params":{', '..."x"}},"jsonrpc":"2.0","id":17}')).toBe(17);
    expect(findRequestId('{"jsonrpc":"2.0","id":"req-1","method":"tools/call"', '..."}}')).toBe("req-1");
    expect(findRequestId('{"id":3,"method":', "...")).toBe(3);
    expect(findRequestId('{"method":"x","params":{"id":5', '..."id":9,"more":1}}')).toBeUndefined();
  });
});
