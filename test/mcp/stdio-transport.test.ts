// Malformed input on `evalkit mcp`'s stdin gets the JSON-RPC 2.0 answer (-32700, -32600) and the server stays up.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, ROOT, TEST_PYTHON } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);

/** A raw `evalkit mcp` process: lines in, parsed lines out. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly home = mkdtempSync(path.join(os.tmpdir(), "evalkit-mcp-raw-"));
  private buffered = "";
  private readonly received: unknown[] = [];
  private waiters: Array<() => void> = [];

  constructor() {
    this.child = spawn(
      process.execPath,
      [path.join(ROOT, "bin", "evalkit.js"), "mcp", "--python", TEST_PYTHON],
      {
        cwd: ROOT,
        env: { ...process.env, EVALKIT_HOME: this.home },
      },
    );
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.buffered += chunk.toString("utf8");
      for (let nl = this.buffered.indexOf("\n"); nl !== -1; nl = this.buffered.indexOf("\n")) {
        this.received.push(JSON.parse(this.buffered.slice(0, nl)));
        this.buffered = this.buffered.slice(nl + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Writes one line and returns the next message the server writes. */
  async ask(line: string): Promise<Record<string, unknown>> {
    const before = this.received.length;
    this.child.stdin.write(`${line}\n`);
    const deadline = Date.now() + 20_000;
    while (this.received.length <= before) {
      if (Date.now() > deadline) throw new Error(`no answer to ${line.slice(0, 80)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.received[before] as Record<string, unknown>;
  }

  /** How many messages arrived so far. */
  get count(): number {
    return this.received.length;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve(undefined);
      else this.child.once("exit", resolve);
    });
    rmSync(this.home, { recursive: true, force: true });
  }
}

describe("evalkit mcp and malformed input", () => {
  let server: RawServer;
  beforeAll(() => {
    server = new RawServer();
  });
  afterAll(() => server.close());

  const initialize = (id: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });

  it("answers a line that is not JSON with -32700 and id null, then serves requests", async () => {
    const answer = await server.ask("{this is not json");
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect((answer.error as { message: string }).message).toMatch(/^parse error: the line is not JSON/);
    const init = await server.ask(initialize(1));
    expect(init).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "evalkit" } } });
  }, 60_000);

  it("answers JSON that is not a JSON-RPC request with -32600, keeping its id when it has one", async () => {
    const noVersion = await server.ask(JSON.stringify({ id: 7, method: "tools/list" }));
    expect(noVersion).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    expect((noVersion.error as { message: string }).message).toContain('without "jsonrpc": "2.0"');
    for (const line of [
      "42",
      '"text"',
      "null",
      "[]",
      JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping" }]),
    ]) {
      const answer = await server.ask(line);
      expect(answer, line).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
    const noMethod = await server.ask(JSON.stringify({ jsonrpc: "2.0", id: "x", params: {} }));
    expect(noMethod).toMatchObject({ id: "x", error: { code: -32600 } });
    // The server is still up and in order: a ping gets its own answer.
    server.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const ping = await server.ask(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }));
    expect(ping).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  }, 60_000);

  it("does not answer a malformed response or notification (JSON-RPC answers requests only)", async () => {
    const before = server.count;
    server.child.stdin.write(`${JSON.stringify({ jsonrpc: "1.0", id: 3, result: 5 })}\n`);
    server.child.stdin.write(`${JSON.stringify({ jsonrpc: "1.0", method: "notifications/x" })}\n`);
    const ping = await server.ask(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" }));
    expect(ping).toEqual({ jsonrpc: "2.0", id: 10, result: {} });
    expect(server.count).toBe(before + 1);
    expect(server.child.exitCode).toBeNull();
  }, 60_000);
});
