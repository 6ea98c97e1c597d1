// A client of `evalkit mcp --http` whose stream drops resumes it with Last-Event-ID and loses nothing; SIGTERM
// ends every session, cell and kernel and leaves no process behind.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { buildCli, textOf } from "./mcp-helpers.js";
import {
  closeHttpServers,
  connectClient,
  type HttpServer,
  startHttpServer,
  waitForExit,
} from "./mcp-http-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeHttpServers);

/**
 * A forwarding proxy on 127.0.0.1 that cuts the first tools/call response stream once a progress notification
 * went through it, as a flaky network would, and records the Last-Event-ID of requests that resume.
 */
async function startFlakyProxy(
  target: string,
): Promise<{ url: string; resumedFrom: string[]; close: () => void }> {
  const upstream = new URL(target);
  const resumedFrom: string[] = [];
  let hasCut = false;
  const proxy = http.createServer((req, res) => {
    const resumeId = req.headers["last-event-id"];
    if (typeof resumeId === "string") resumedFrom.push(resumeId);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const isCall = body.includes("tools/call");
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.flushHeaders();
          answer.on("data", (chunk: Buffer) => {
            if (hasCut && isCall && res.destroyed) return;
            const isCutHere = isCall && !hasCut && chunk.includes("notifications/progress");
            if (isCutHere) hasCut = true;
            // The client gets what went through before the cut, like on a real network.
            res.write(chunk, () => {
              if (!isCutHere) return;
              forward.destroy();
              res.destroy();
            });
          });
          answer.on("end", () => res.end());
          answer.on("error", () => res.destroy());
        },
      );
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    resumedFrom,
    close: () => {
      proxy.closeAllConnections();
      proxy.close();
    },
  };
}

describe("evalkit mcp --http streams", () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  }, 60_000);

  it("resumes a dropped call stream with Last-Event-ID and delivers the progress and result it missed", async () => {
    const proxy = await startFlakyProxy(server.url);
    try {
      const { client } = await connectClient(
        { ...server, url: proxy.url },
        {
          reconnectionOptions: {
            initialReconnectionDelay: 100,
            maxReconnectionDelay: 500,
            reconnectionDelayGrowFactor: 1.5,
            maxRetries: 5,
          },
        },
      );
      const progress: string[] = [];
      const result = (await client.callTool(
        {
          name: "eval",
          arguments: {
            cells: [
              {
                code: "import time\nfor i in range(6):\n    print('step', i, flush=True)\n    time.sleep(0.3)\n'all done'",
              },
            ],
          },
        },
        undefined,
        { onprogress: (update) => progress.push(update.message ?? ""), timeout: 30_000 },
      )) as CallToolResult;
      expect(proxy.resumedFrom.length).toBeGreaterThan(0);
      expect(textOf(result)).toContain("step 5");
      expect(textOf(result)).toContain("'all done'");
      expect(progress.some((message) => message.includes("1/1 cells done"))).toBe(true);
      // The session is intact after the resumption.
      const next = (await client.callTool({
        name: "eval",
        arguments: { cells: [{ code: "i" }] },
      })) as CallToolResult;
      expect(textOf(next)).toContain("5");
    } finally {
      proxy.close();
    }
  }, 60_000);
});

describe("evalkit mcp --http shutdown", () => {
  it("ends every session, running cell and kernel on SIGTERM and exits 0 with no process left", async () => {
    const server = await startHttpServer();
    const first = await connectClient(server);
    const second = await connectClient(server);
    const pids: number[] = [];
    for (const { client } of [first, second]) {
      const text = textOf(
        (await client.callTool({
          name: "eval",
          arguments: {
            cells: [
              {
                code: "import os, subprocess\nchild = subprocess.Popen(['sleep', '300'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint(os.getpid(), child.pid)",
              },
            ],
          },
        })) as CallToolResult,
      );
      const [kernel, child] = (/(\d+) (\d+)\s*$/.exec(text) ?? []).slice(1).map(Number);
      pids.push(kernel ?? 0, child ?? 0);
    }
    expect(pids.every((pid) => pid > 1 && isProcessAlive(pid))).toBe(true);
    // A cell still running when the signal comes.
    const progress: string[] = [];
    const running = first.client
      .callTool(
        { name: "eval", arguments: { cells: [{ code: "import time\ntime.sleep(120)" }] } },
        undefined,
        { onprogress: (update) => progress.push(update.message ?? "") },
      )
      .then(
        (result) => result as CallToolResult,
        (err: unknown) => err,
      );
    expect(await waitFor(() => progress.length > 0, 10_000)).toBe(true);
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await waitForExit([server.process.pid ?? 0, ...pids], 5000)).toBe(true);
    expect(server.stderr()).toContain("SIGTERM: ending 2 session(s)");
    // The client of the running call got its answer (the cell cancelled) instead of waiting for its timeout.
    const answer = await running;
    expect(answer).toMatchObject({ isError: true });
    expect(textOf(answer as CallToolResult)).toMatch(/cancel/i);
  }, 60_000);
});
