// Jobs through `evalkit mcp` and the SDK's own client: early return, wait with progress, cancel, busy, deaths, 1 GB.
import { readFileSync } from "node:fs";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive, waitFor } from "../helpers/processes.js";
import { buildCli, closeServers, type StartedServer, startServer, textOf } from "./mcp-helpers.js";

interface JobDetails {
  ok: boolean;
  cells: { index: number; status: string; text: string; truncated?: { totalBytes: number } }[];
  job?: { id: string; state: string };
}

async function call(
  server: StartedServer,
  args: Record<string, unknown>,
  onprogress?: (progress: Progress) => void,
): Promise<CallToolResult> {
  return (await server.client.callTool(
    { name: "eval", arguments: args },
    undefined,
    onprogress ? { onprogress, timeout: 120_000 } : { timeout: 120_000 },
  )) as CallToolResult;
}

const detailsOf = (result: CallToolResult) => result.structuredContent as unknown as JobDetails;

/** Waits on a job with `wait` calls until it ends; every return, the first one included. */
async function collectToEnd(
  server: StartedServer,
  first: CallToolResult,
  wait = 30,
): Promise<CallToolResult[]> {
  const returns = [first];
  let last = first;
  while (detailsOf(last).job?.state === "running") {
    last = await call(server, { job: detailsOf(last).job?.id, wait });
    returns.push(last);
  }
  return returns;
}

function textsOf(returns: CallToolResult[], index: number): string {
  return returns
    .flatMap((r) => detailsOf(r).cells.filter((c) => c.index === index))
    .map((c) => c.text)
    .join("");
}

/** Resident memory of a process in bytes (Linux). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : 0;
}

describe("evalkit mcp jobs", () => {
  let server: StartedServer;
  beforeAll(async () => {
    await buildCli();
    server = await startServer();
  }, 150_000);
  afterAll(closeServers);

  it("returns early with a job handle in the text, then a wait gets the rest with progress flowing", async () => {
    const code = "import time\nfor i in range(4):\n    print(f'line {i}', flush=True)\n    time.sleep(1)";
    await call(server, { cells: [{ code: "1" }] }); // a warm kernel: the first line comes before yieldAfter
    const first = await call(server, { cells: [{ code }], yieldAfter: 1.5 });
    expect(first.isError).toBe(false);
    const job = detailsOf(first).job;
    expect(job).toEqual({ id: expect.stringMatching(/^job-/), state: "running" });
    expect(textOf(first)).toContain(`[job ${job?.id} running]`);
    expect(detailsOf(first).cells[0]?.status).toBe("running");

    const updates: Progress[] = [];
    const last = await call(server, { job: job?.id, wait: 30 }, (p) => updates.push(p));
    expect(detailsOf(last).job).toEqual({ id: job?.id, state: "done" });
    expect(last.isError).toBe(false);
    expect(textsOf([first, last], 0)).toBe("line 0\nline 1\nline 2\nline 3\n");
    // The wait lasted a couple of seconds of output: the client heard about it while it waited.
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.some((u) => /line \d/.test(u.message ?? ""))).toBe(true);
    expect(updates.every((u) => u.total === 1)).toBe(true);

    const gone = await call(server, { job: job?.id });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toContain("JOB_NOT_FOUND");
  }, 60_000);

  it("reports a silent job's true running time in the progress of a later wait, with heartbeats", async () => {
    const first = await call(server, { cells: [{ code: "import time\ntime.sleep(5)" }], yieldAfter: 0.5 });
    const id = detailsOf(first).job?.id;
    expect(detailsOf(first).job?.state).toBe("running");
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const updates: Progress[] = [];
    const last = await call(server, { job: id, wait: 30 }, (p) => updates.push(p));
    expect(detailsOf(last).job?.state).toBe("done");
    // The cell printed nothing: without its elapsed time brought up to date the wait would start at "0.0s".
    const seconds = Number(/running ([\d.]+)s/.exec(updates[0]?.message ?? "")?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("cancels a job and refuses other calls on the session with SESSION_BUSY meanwhile", async () => {
    const first = await call(server, {
      cells: [
        { code: "kept = 7\nprint('looping', flush=True)\nimport time\nwhile True:\n    time.sleep(0.05)" },
      ],
      yieldAfter: 0,
    });
    const id = detailsOf(first).job?.id;
    expect(detailsOf(first).job?.state).toBe("running");
    const busy = await call(server, { cells: [{ code: "1" }] });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toContain("SESSION_BUSY");
    expect(textOf(busy)).toContain(`{"job": "${id}", "wait"`);
    const cancelled = await call(server, { job: id, cancel: true });
    expect(detailsOf(cancelled).job?.state).toBe("cancelled");
    expect(detailsOf(cancelled).cells[0]?.status).toBe("cancelled");
    const after = await call(server, { cells: [{ code: "print(kept)" }] });
    expect(detailsOf(after).cells[0]?.text).toBe("7\n");
  }, 60_000);

  it("reports a job whose kernel dies as failed, and one past its hard timeout as timed out", async () => {
    const dies = await call(server, {
      cells: [{ code: "import os, time\nprint('bye', flush=True)\ntime.sleep(1)\nos._exit(9)" }],
      yieldAfter: 0.3,
    });
    const died = (await collectToEnd(server, dies)).at(-1)!;
    expect(detailsOf(died).job?.state).toBe("failed");
    expect(detailsOf(died).cells[0]?.status).toBe("died");

    const slow = await call(server, {
      cells: [{ code: "import time\ntime.sleep(60)", timeout: 2 }],
      yieldAfter: 0.3,
    });
    const timedOut = (await collectToEnd(server, slow)).at(-1)!;
    expect(detailsOf(timedOut).job?.state).toBe("failed");
    expect(detailsOf(timedOut).cells[0]?.status).toBe("timeout");
  }, 60_000);

  it("ends a running job's kernel when the client closes the connection", async () => {
    const own = await startServer();
    const first = await call(own, {
      cells: [{ code: "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(120)" }],
      yieldAfter: 0,
    });
    expect(detailsOf(first).job?.state).toBe("running");
    const kernel = Number(detailsOf(first).cells[0]?.text.trim());
    expect(isProcessAlive(kernel)).toBe(true);
    await own.client.close();
    expect(await waitFor(() => !isProcessAlive(kernel) && !isProcessAlive(own.pid), 15_000)).toBe(true);
  }, 60_000);

  it("prints 1 GB from a job with the server's memory bounded and every byte accounted for", async () => {
    const code = [
      "import os",
      "block = b'x' * 63 + b'\\n'",
      "block = block * 16384",
      "total = 0",
      "while total < 1024 * 1024 * 1024:",
      "    view = memoryview(block)",
      "    while view:",
      "        view = view[os.write(1, view):]",
      "    total += len(block)",
    ].join("\n");
    await call(server, { cells: [{ code: "1" }] });
    const before = rssOf(server.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(server.pid));
    }, 50);
    let returns: CallToolResult[];
    try {
      const first = await call(server, { cells: [{ code, timeout: 600 }], yieldAfter: 1 });
      returns = await collectToEnd(server, first, 5);
    } finally {
      clearInterval(sampler);
    }
    const cells = returns.flatMap((r) => detailsOf(r).cells);
    expect(cells.at(-1)?.status).toBe("ok");
    let bytes = 0;
    for (const cell of cells) bytes += cell.truncated?.totalBytes ?? Buffer.byteLength(cell.text);
    expect(bytes).toBe(1024 * 1024 * 1024);
    // Generous: another process's RSS includes garbage its V8 has not collected yet (62-75 MB seen here);
    // buffering the job's output would grow it by the gigabyte.
    expect(peak - before).toBeLessThan(128 * 1024 * 1024);
    console.log(
      `1 GB MCP job over ${returns.length} returns: server RSS growth ${((peak - before) / 1048576).toFixed(1)} MB`,
    );
  }, 300_000);
});
