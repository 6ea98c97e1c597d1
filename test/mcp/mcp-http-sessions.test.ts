// Each MCP session of `evalkit mcp --http` has its own kernels, jobs, artifacts and directory, and ends with
// DELETE or its idle TTL, taking its kernels with it; sessions run side by side.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/processes.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { buildCli, textOf } from "./mcp-helpers.js";
import {
  closeHttpServers,
  connectClient,
  type HttpServer,
  request,
  startHttpServer,
  waitForExit,
} from "./mcp-http-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeHttpServers);

async function call(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name: "eval", arguments: args })) as CallToolResult;
}

async function run(client: Client, code: string, language = "py"): Promise<string> {
  return textOf(await call(client, { cells: [{ code, language }] }));
}

/** The kernel pids of a session: its Python kernel's and its JavaScript kernel's. */
async function kernelPids(client: Client): Promise<number[]> {
  const py = Number(/(\d+)\s*$/.exec(await run(client, "import os; print(os.getpid())"))?.[1]);
  const js = Number(/(\d+)\s*$/.exec(await run(client, "console.log(process.pid)", "js"))?.[1]);
  expect(py).toBeGreaterThan(1);
  expect(js).toBeGreaterThan(1);
  return [py, js];
}

describe("evalkit mcp --http sessions", () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  }, 60_000);

  it("keeps variables, files and the directory within a session and none of them across sessions", async () => {
    const a = (await connectClient(server)).client;
    const b = (await connectClient(server)).client;
    const whereA = await run(
      a,
      "import os\nsecret = 41\nopen('mine.txt', 'w').write('A')\nprint(os.getcwd())",
    );
    const whereB = await run(b, "import os\nprint(os.getcwd())");
    const dirA = /\/\S+$/.exec(whereA)?.[0] ?? "";
    expect(dirA).toMatch(new RegExp(`^${server.root}/sessions/[0-9a-f-]{36}$`));
    expect(whereB).not.toContain(dirA);
    expect(await run(a, "secret + 1")).toContain("42");
    expect(await run(a, "open('mine.txt').read()")).toContain("'A'");
    expect(await run(b, "secret")).toContain("NameError");
    expect(await run(b, "import os\nos.path.exists('mine.txt')")).toContain("False");
  }, 60_000);

  it("finds a job only in the session that started it", async () => {
    const a = (await connectClient(server)).client;
    const b = (await connectClient(server)).client;
    const started = await call(a, { cells: [{ code: "import time\ntime.sleep(30)" }], yieldAfter: 0.3 });
    const job = (started.structuredContent as { job?: { id: string } }).job?.id ?? "";
    expect(job).toMatch(/^job-/);
    const foreign = await call(b, { job, wait: 0 });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toContain("JOB_NOT_FOUND");
    const cancelled = await call(a, { job, cancel: true });
    expect(textOf(cancelled)).not.toContain("JOB_NOT_FOUND");
  }, 60_000);

  it("lists and reads a session's artifacts in that session only", async () => {
    const a = (await connectClient(server)).client;
    const b = (await connectClient(server)).client;
    const long = await run(a, "for i in range(60000): print('line', i)");
    const uri = /artifact:\/\/[A-Za-z0-9_-]+/.exec(long)?.[0] ?? "";
    expect(uri).not.toBe("");
    expect((await a.listResources()).resources.map((resource) => resource.uri)).toContain(uri);
    expect((await a.readResource({ uri })).contents[0]).toMatchObject({
      text: expect.stringContaining("line 0\n"),
    });
    expect((await b.listResources()).resources).toEqual([]);
    await expect(b.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
  }, 60_000);

  it("ends a session's kernels when the client sends DELETE", async () => {
    const { client, transport } = await connectClient(server);
    const pids = await kernelPids(client);
    await transport.terminateSession();
    expect(await waitForExit(pids)).toBe(true);
    const metrics = await (await request(server, "/metrics")).text();
    expect(metrics).not.toMatch(/evalkit_mcp_kernel_deaths_total [1-9]/);
  }, 60_000);

  it("runs one call at a time within a session: a second call starts after the first ends", async () => {
    const { client } = await connectClient(server);
    const [first, second] = await Promise.all([
      run(client, "import time\nstart = time.time()\ntime.sleep(0.5)\nprint('first', start, time.time())"),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
        run(client, "import time\nprint('second', time.time())"),
      ),
    ]);
    const firstEnd = Number(/first \S+ (\S+)/.exec(first)?.[1]);
    const secondStart = Number(/second (\S+)/.exec(second)?.[1]);
    expect(secondStart).toBeGreaterThanOrEqual(firstEnd);
  }, 60_000);

  it("answers 20 concurrent clients correctly, running their calls in parallel", async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => connectClient(server)));
    await Promise.all(clients.map(({ client }, index) => run(client, `n = ${index}`)));
    const started = Date.now();
    const answers = await Promise.all(
      clients.map(({ client }) => run(client, "import time\ntime.sleep(1)\nn * 2 + 1000")),
    );
    const elapsedMs = Date.now() - started;
    answers.forEach((answer, index) => {
      expect(answer).toContain(String(index * 2 + 1000));
    });
    // One after another they would take 20 s.
    expect(elapsedMs).toBeLessThan(10_000);
    await Promise.all(clients.map(({ transport }) => transport.terminateSession()));
  }, 120_000);
});

describe("evalkit mcp --http --session-ttl", () => {
  it("ends an idle session and its kernels after the TTL, and the client then learns the session is gone", async () => {
    const server = await startHttpServer({ args: ["--session-ttl", "2"] });
    const { client } = await connectClient(server);
    const pids = await kernelPids(client);
    expect(await waitForExit(pids, 15_000)).toBe(true);
    expect(await waitFor(() => /session \S+ ended \(idle\)/.test(server.stderr()))).toBe(true);
    await expect(run(client, "1")).rejects.toMatchObject({ code: 404 });
  }, 60_000);

  it("keeps a session whose call runs longer than the TTL", async () => {
    const server = await startHttpServer({ args: ["--session-ttl", "2"] });
    const { client } = await connectClient(server);
    expect(await run(client, "import time\nx = 5\ntime.sleep(4)\nx")).toContain("5");
    expect(await run(client, "x + 1")).toContain("6");
  }, 60_000);
});

describe.skipIf(sandboxSkipReason !== "")(`evalkit mcp --http --sandbox ${sandboxSkipReason}`, () => {
  it("keeps each session's files out of every other session's reach", async () => {
    const server = await startHttpServer({ args: ["--sandbox"] });
    const a = (await connectClient(server)).client;
    const b = (await connectClient(server)).client;
    const whereA = await run(a, "import os\nopen('secret.txt', 'w').write('A only')\nprint(os.getcwd())");
    const dirA = /\/\S+$/.exec(whereA)?.[0] ?? "";
    expect(dirA).toContain(`${server.root}/sessions/`);
    expect(await run(a, "open('secret.txt').read()")).toContain("A only");
    const idA = dirA.split("/").pop() ?? "";
    const probe = await run(
      b,
      `import os\nprint(os.path.exists(${JSON.stringify(`${dirA}/secret.txt`)}), os.listdir('.'))\nprint(os.listdir(${JSON.stringify(`${server.root}/sessions`)}))`,
    );
    // Inside B's sandbox the sessions directory holds B's own directory only (the mount point of its cwd).
    expect(probe).toContain("False []");
    expect(probe).not.toContain(idA);
  }, 60_000);
});
