// The Jupyter backend against a minimal `ws` client on the same server (issue 32's targets), interleaved rounds.
// Usage: npm run build && node bench/jupyter-backend.mjs [--python /usr/bin/python3] [--rounds 5] [--calls 50]
// Starts its own jupyter_server on 127.0.0.1 (the --python's), prints medians and ratios as JSON and a table.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { createEvalTool } from "../dist/index.js";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
};
const python = option("--python", "/usr/bin/python3");
const rounds = Number(option("--rounds", "5"));
const calls = Number(option("--calls", "50"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// --- the minimal client: REST start, one WebSocket, execute_request, wait for execute_reply and iopub idle ---
async function minimalKernel(url, token) {
  const headers = { Authorization: `token ${token}`, "Content-Type": "application/json" };
  const res = await fetch(`${url}/api/kernels`, { method: "POST", headers, body: '{"name":"python3"}' });
  const { id } = await res.json();
  const session = randomUUID();
  const ws = new WebSocket(`${url.replace("http", "ws")}/api/kernels/${id}/channels?session_id=${session}`, {
    headers,
  });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    const waiter = pending.get(msg.parent_header?.msg_id);
    if (!waiter) return;
    if (msg.header.msg_type === "execute_reply" || msg.header.msg_type === "kernel_info_reply")
      waiter.reply = true;
    if (msg.header.msg_type === "execute_result") waiter.result = msg.content.data["text/plain"];
    if (msg.header.msg_type === "status" && msg.content.execution_state === "idle") waiter.idle = true;
    if (waiter.reply && waiter.idle) {
      pending.delete(msg.parent_header.msg_id);
      waiter.resolve(waiter.result);
    }
  });
  const send = (msgType, content) =>
    new Promise((resolve) => {
      const msgId = randomUUID();
      pending.set(msgId, { resolve });
      const header = {
        msg_id: msgId,
        msg_type: msgType,
        username: "b",
        session,
        date: new Date().toISOString(),
        version: "5.3",
      };
      ws.send(
        JSON.stringify({ header, parent_header: {}, metadata: {}, content, channel: "shell", buffers: [] }),
      );
    });
  await send("kernel_info_request", {});
  return {
    execute: (code) =>
      send("execute_request", {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true,
      }),
    close: async () => {
      ws.close();
      await fetch(`${url}/api/kernels/${id}`, { method: "DELETE", headers });
    },
  };
}

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const dir = mkdtempSync(join(os.tmpdir(), "evalkit-bench-jupyter-"));
  const port = await freePort();
  const token = randomUUID();
  const child = spawn(
    python,
    [
      "-m",
      "jupyter_server",
      "--no-browser",
      "--allow-root",
      "--ip=127.0.0.1",
      `--port=${port}`,
      `--ServerApp.token=${token}`,
      `--IdentityProvider.token=${token}`,
      `--ServerApp.root_dir=${dir}`,
    ],
    { stdio: "ignore", env: { ...process.env, JUPYTER_RUNTIME_DIR: join(dir, "rt") } },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400; i++) {
    const ok = await fetch(`${url}/api`, { headers: { Authorization: `token ${token}` } }).then(
      (r) => r.ok,
      () => false,
    );
    const stop = () => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    };
    if (ok) return { url, token, stop };
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error("jupyter_server did not start");
}

const server = await startServer();
const results = { warmMinimal: [], warmEvalkit: [], coldMinimal: [], coldEvalkit: [] };
for (let round = 0; round < rounds; round++) {
  // Cold: start a kernel and get the first result of 1+1.
  let t = performance.now();
  const minimal = await minimalKernel(server.url, server.token);
  if ((await minimal.execute("1+1")) !== "2") throw new Error("minimal client: wrong result");
  results.coldMinimal.push(performance.now() - t);
  t = performance.now();
  const tool = createEvalTool({ jupyter: { url: server.url, token: server.token }, flagsEnv: {} });
  const first = await tool.execute({ cells: [{ code: "1+1" }] });
  if (first.details.cells[0].text !== "2\n") throw new Error(`evalkit: ${first.details.cells[0].text}`);
  results.coldEvalkit.push(performance.now() - t);
  // Warm: the same 1+1, alternating batches.
  for (let batch = 0; batch < 2; batch++) {
    t = performance.now();
    for (let i = 0; i < calls; i++) await minimal.execute("1+1");
    results.warmMinimal.push((performance.now() - t) / calls);
    t = performance.now();
    for (let i = 0; i < calls; i++) await tool.execute({ cells: [{ code: "1+1" }] });
    results.warmEvalkit.push((performance.now() - t) / calls);
  }
  await minimal.close();
  await tool.dispose();
}
server.stop();
const summary = {
  python,
  rounds,
  calls,
  warmMinimalMs: median(results.warmMinimal),
  warmEvalkitMs: median(results.warmEvalkit),
  coldMinimalMs: median(results.coldMinimal),
  coldEvalkitMs: median(results.coldEvalkit),
};
summary.warmRatio = summary.warmEvalkitMs / summary.warmMinimalMs;
summary.coldRatio = summary.coldEvalkitMs / summary.coldMinimalMs;
console.log(JSON.stringify(summary, null, 2));
const fmt = (x) => x.toFixed(2);
console.log(
  `| warm 1+1 | ${fmt(summary.warmMinimalMs)} ms | ${fmt(summary.warmEvalkitMs)} ms | ${fmt(summary.warmRatio)}x (target <= 1.2x) |`,
);
console.log(
  `| start + first 1+1 | ${fmt(summary.coldMinimalMs)} ms | ${fmt(summary.coldEvalkitMs)} ms | ${fmt(summary.coldRatio)}x (target <= 1.2x) |`,
);
process.exit(0);
