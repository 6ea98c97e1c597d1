// `node bench/mcp-http.mjs`: evalkit mcp over Streamable HTTP on loopback against stdio, and under load.
// 1. warm `1+1` round trip through the SDK client, HTTP vs stdio, interleaved rounds (one run, one ratio);
// 2. N concurrent sessions each making warm calls for D seconds: errors, p50/p99, the server's RSS per session.
// Flags: --python PATH (default /usr/bin/python3), --sessions N (100), --seconds D (30), --rounds R (10),
//        --batch B (50 calls a round), --only warm|load, --write (append to bench/RESULTS-mcp-http.md).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { summarize } from "./lib/stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
};
const python = option("--python", "/usr/bin/python3");
const sessions = Number(option("--sessions", "100"));
const seconds = Number(option("--seconds", "30"));
const rounds = Number(option("--rounds", "10"));
const batch = Number(option("--batch", "50"));
const only = option("--only", "");
const log = (text) => process.stderr.write(`${text}\n`);
const ONE_PLUS_ONE = { name: "eval", arguments: { cells: [{ code: "1+1" }] } };

const work = mkdtempSync(path.join(os.tmpdir(), "evalkit-bench-mcp-http-"));
const env = { ...process.env, EVALKIT_HOME: path.join(work, "home") };
delete env.EVALKIT_MCP_TOKEN;

async function startHttp(extraArgs = []) {
  const token = randomBytes(24).toString("hex");
  const child = spawn(
    process.execPath,
    [
      // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server.
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      path.join(ROOT, "bin/evalkit.js"),
      "mcp",
      "--http",
      "127.0.0.1:0",
      "--python",
      python,
      "--root",
      work,
      ...extraArgs,
    ],
    {
      cwd: work,
      env: { ...env, EVALKIT_MCP_TOKEN: token },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (process.env.BENCH_DEBUG) process.stderr.write(chunk);
      const match = /listening on (\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(stderr)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url,
    pid: child.pid,
    connect: async () => {
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: "bench", version: "0" });
      await client.connect(transport);
      return { client, end: () => transport.terminateSession().then(() => client.close()) };
    },
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

async function connectStdio() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, "bin/evalkit.js"), "mcp", "--python", python],
    cwd: work,
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return { client, end: () => client.close() };
}

/** The SDK's own floor: its Server with a tool that answers at once, on its Streamable HTTP transport (no auth). */
const FLOOR_SERVER = `
import http from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const transports = new Map();
const server = http.createServer(async (req, res) => {
  const id = req.headers["mcp-session-id"];
  let transport = id && transports.get(id);
  if (!transport) {
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sid) => transports.set(sid, transport) });
    const mcp = new Server({ name: "floor", version: "0" }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "2" }] }));
    await mcp.connect(transport);
  }
  await transport.handleRequest(req, res);
});
server.listen(0, "127.0.0.1", () => process.stderr.write("listening on http://127.0.0.1:" + server.address().port + "/mcp\\n"));
`;

async function startFloor() {
  const child = spawn(process.execPath, ["--input-type=module", "-e", FLOOR_SERVER], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(stderr)));
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return { client, end: () => client.close().then(() => child.kill()) };
}

async function timeBatch(client) {
  const t0 = performance.now();
  for (let i = 0; i < batch; i += 1) await client.callTool(ONE_PLUS_ONE);
  return (performance.now() - t0) / batch;
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
}

async function benchWarm() {
  const server = await startHttp();
  const http = await server.connect();
  const stdio = await connectStdio();
  const floor = await startFloor();
  for (let i = 0; i < 200; i += 1) {
    await http.client.callTool(ONE_PLUS_ONE);
    await stdio.client.callTool(ONE_PLUS_ONE);
    await floor.client.callTool(ONE_PLUS_ONE);
  }
  const httpMs = [];
  const stdioMs = [];
  const floorMs = [];
  for (let round = 0; round < rounds; round += 1) {
    httpMs.push(await timeBatch(http.client));
    stdioMs.push(await timeBatch(stdio.client));
    floorMs.push(await timeBatch(floor.client));
  }
  await http.end();
  await stdio.end();
  await floor.end();
  await server.stop();
  const h = summarize(httpMs);
  const s = summarize(stdioMs);
  const f = summarize(floorMs);
  return {
    http: h,
    stdio: s,
    sdkHttpFloor: f,
    ratio: h.median / s.median,
    httpMinusFloorMs: h.median - f.median,
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function benchLoad() {
  const server = await startHttp(["--max-sessions", String(sessions)]);
  const baseKb = rssKb(server.pid);
  const clients = [];
  for (let i = 0; i < sessions; i += 10) {
    clients.push(
      ...(await Promise.all(Array.from({ length: Math.min(10, sessions - i) }, () => server.connect()))),
    );
  }
  // Every session's kernel is warm before the clock starts.
  await Promise.all(clients.map(({ client }) => client.callTool(ONE_PLUS_ONE)));
  const idleKb = rssKb(server.pid);
  const latencies = [];
  let errors = 0;
  let peakKb = idleKb;
  const deadline = performance.now() + seconds * 1000;
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(server.pid));
  }, 250);
  await Promise.all(
    clients.map(async ({ client }) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const result = await client.callTool(ONE_PLUS_ONE);
          const text = result.content?.map((block) => block.text ?? "").join("") ?? "";
          if (result.isError || !/\b2\b/.test(text)) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  clearInterval(sampler);
  await Promise.all(clients.map(({ end }) => end().catch(() => undefined)));
  await server.stop();
  latencies.sort((a, b) => a - b);
  return {
    sessions,
    seconds,
    calls: latencies.length,
    errors,
    callsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1),
    serverRssMb: { base: baseKb / 1024, idle: idleKb / 1024, peak: peakKb / 1024 },
    perSessionKb: (peakKb - baseKb) / sessions,
    perIdleSessionKb: (idleKb - baseKb) / sessions,
  };
}

try {
  const result = { date: new Date().toISOString(), cpus: os.cpus().length, node: process.version, python };
  if (only !== "load") {
    log("warm 1+1: HTTP vs stdio...");
    result.warm = await benchWarm();
  }
  if (only !== "warm") {
    log(`load: ${sessions} sessions for ${seconds} s...`);
    result.load = await benchLoad();
  }
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(work, { recursive: true, force: true });
}
