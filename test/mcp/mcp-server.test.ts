// `evalkit mcp` driven by the SDK's own Client over stdio: tools, state, errors, progress, cancellation, shutdown.

import { readFileSync } from "node:fs";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProcesses, isProcessAlive, waitFor } from "../helpers/processes.js";
import { buildCli, callEval, closeServers, type StartedServer, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

describe("evalkit mcp", () => {
  let server: StartedServer;
  beforeAll(async () => {
    server = await startServer();
  });

  it("lists one eval tool whose input schema is the tool's own JSON Schema", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["eval"]);
    const [tool] = tools;
    expect(tool?.description).toContain("cells");
    expect(tool?.inputSchema.type).toBe("object");
    // cells or job: a job call has no cells, so nothing is required at the top (the schema stays flat).
    expect(tool?.inputSchema.required ?? []).toEqual([]);
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["cells", "timeout", "reset", "yieldAfter", "job", "wait", "cancel"]),
    );
    const { resourceTemplates } = await server.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["artifact://{id}{?offset,limit}"]);
  });

  it("runs a cell and keeps its state for the next call", async () => {
    const first = await callEval(server.client, [{ code: "x = 41\nprint('hello')" }]);
    expect(first.isError).toBe(false);
    expect(textOf(first)).toContain("hello");
    const second = await callEval(server.client, [{ code: "x + 1" }]);
    expect(second.isError).toBe(false);
    expect(textOf(second)).toContain("42");
    const details = second.structuredContent as { ok: boolean; cells: { status: string; text: string }[] };
    expect(details.ok).toBe(true);
    expect(details.cells[0]).toMatchObject({ status: "ok", text: "42\n" });
  });

  it("answers cells with huge values, errors and images in messages the client can read, keeping the session", async () => {
    await callEval(server.client, [{ code: "kept = 'state'" }]);
    const png = "b'\\x89PNG\\r\\n\\x1a\\n' + bytes(3_000_000)";
    const big = await callEval(server.client, [
      { code: "'x' * 12_000_000" },
      { code: `display({'image/png': ${png}}, raw=True)\ndisplay({'image/png': ${png}}, raw=True)` },
    ]);
    expect(big.isError).toBe(false);
    expect(JSON.stringify(big).length).toBeLessThan(9 * 1024 * 1024);
    expect(big.content.filter((block) => block.type === "image")).toHaveLength(1);
    expect(textOf(big)).toContain("left out");
    const details = big.structuredContent as { cells: { outputs: { data?: Record<string, string> }[] }[] };
    // The runner sends a value this big whole as stdout first (its artifact copy), then the capped result.
    const result = details.cells[0]?.outputs.find((output) => output.data !== undefined);
    expect(result?.data?.["text/plain"]).toContain("left out of this MCP result");
    const failing = await callEval(server.client, [{ code: "raise ValueError('y' * 12_000_000)" }]);
    expect(failing.isError).toBe(true);
    expect(JSON.stringify(failing).length).toBeLessThan(2 * 1024 * 1024);
    const after = await callEval(server.client, [{ code: "kept" }]);
    expect(textOf(after)).toContain("'state'");
  });

  it("runs JavaScript cells in their own retained context", async () => {
    const result = await callEval(server.client, [
      { code: "globalThis.n = 20; console.log('js says', n)", language: "js" },
      { code: "n + 1", language: "js" },
    ]);
    expect(result.isError, textOf(result)).toBe(false);
    expect(textOf(result)).toContain("js says 20");
    expect(textOf(result)).toContain("21");
  });

  it("reports a failing cell with isError, its traceback, and later cells as skipped", async () => {
    const result = await callEval(server.client, [
      { code: "1 / 0", title: "divide" },
      { code: "print('never')" },
    ]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("ZeroDivisionError");
    expect(textOf(result)).not.toContain("never");
    const details = result.structuredContent as { ok: boolean; cells: { status: string }[] };
    expect(details.ok).toBe(false);
    expect(details.cells.map((cell) => cell.status)).toEqual(["error", "skipped"]);
  });

  it("answers invalid arguments with a tool error naming the field, and the next call works", async () => {
    const bad = await server.client.callTool({
      name: "eval",
      arguments: { cells: [{ code: "1", language: "rb" }] },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad as never)).toContain('cells[0].language: expected "py" or "js", got "rb"');
    const missing = await server.client.callTool({ name: "eval", arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing as never)).toContain("cells:");
    const good = await callEval(server.client, [{ code: "x * 2" }]);
    expect(good.isError).toBe(false);
    expect(textOf(good)).toContain("82");
  });

  it("rejects an unknown tool name with a protocol error", async () => {
    await expect(server.client.callTool({ name: "exec", arguments: {} })).rejects.toThrow(
      /unknown tool "exec"/,
    );
  });

  it("resets the interpreter when a cell asks for it", async () => {
    const result = await callEval(server.client, [{ code: "'x' in globals()", reset: true }]);
    expect(textOf(result)).toContain("False");
    await callEval(server.client, [{ code: "x = 41" }]);
  });

  it("sends progress notifications with the running cell's latest output when the client asks", async () => {
    const updates: Progress[] = [];
    const result = await callEval(
      server.client,
      [{ code: "import time\nfor i in range(4):\n    print('step', i, flush=True)\n    time.sleep(0.4)" }],
      { onprogress: (progress) => updates.push(progress) },
    );
    expect(result.isError).toBe(false);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    const values = updates.map((update) => update.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(updates.every((update) => update.total === 1)).toBe(true);
    expect(updates.some((update) => /running .*step \d/.test(update.message ?? ""))).toBe(true);
  });

  it("sends no progress notifications to a client that did not ask for them", async () => {
    const errors: Error[] = [];
    server.client.onerror = (error) => errors.push(error);
    try {
      const result = await callEval(server.client, [
        { code: "import time\nfor i in range(3):\n    print('step', i, flush=True)\n    time.sleep(0.3)" },
      ]);
      expect(textOf(result)).toContain("step 2");
    } finally {
      server.client.onerror = undefined;
    }
    expect(errors).toEqual([]);
  });

  it("interrupts a busy loop when the client cancels, keeping earlier state", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = callEval(server.client, [{ code: "while True:\n    pass", timeout: 60 }], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user pressed stop")), 500);
    await expect(pending).rejects.toThrow();
    // Calls never overlap, so this one waits until the loop has really been interrupted.
    const next = await callEval(server.client, [{ code: "x + 1" }]);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(next.isError).toBe(false);
    expect(textOf(next)).toContain("42");
  });
});

/** The server's Python kernels: its children whose command line names them (`evalkit-kernel python`). */
function kernelsOf(serverPid: number): number[] {
  return findProcesses("evalkit-kernel python").filter((pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === serverPid;
  });
}

describe("evalkit mcp lifecycle", () => {
  it("starts its Python kernel while the client initializes, and the first eval runs on it as cell 1", async () => {
    const server = await startServer();
    // No eval yet: the kernel was started at start-up, so a client's first result does not wait for it.
    expect(await waitFor(() => kernelsOf(server.pid).length === 1, 10_000)).toBe(true);
    const [warmed] = kernelsOf(server.pid);
    const result = await callEval(server.client, [{ code: "import os\nos.getpid()" }]);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain(String(warmed));
    const cells = (result.structuredContent as { cells: { executionCount: number }[] }).cells;
    expect(cells[0]?.executionCount).toBe(1);
    expect(kernelsOf(server.pid)).toEqual([warmed]);
  });

  it("exits on stdin close, leaving neither the server nor its kernel behind", async () => {
    const server = await startServer();
    const result = await callEval(server.client, [{ code: "import os\nos.getpid()" }]);
    const kernelPid = Number(/\d+/.exec(textOf(result).split("\n").slice(1).join("\n"))?.[0]);
    expect(isProcessAlive(kernelPid)).toBe(true);
    const started = Date.now();
    await server.client.close();
    // The SDK's client sends SIGTERM after 2 s; closing sooner shows the server left on its own.
    expect(Date.now() - started).toBeLessThan(1900);
    expect(await waitFor(() => !isProcessAlive(server.pid) && !isProcessAlive(kernelPid), 5000)).toBe(true);
  });

  it("stops a running cell and exits when the client disconnects mid-call", async () => {
    const server = await startServer();
    const result = await callEval(server.client, [{ code: "import os\nos.getpid()" }]);
    const kernelPid = Number(/\d+/.exec(textOf(result).split("\n").slice(1).join("\n"))?.[0]);
    const pending = callEval(server.client, [{ code: "import time\ntime.sleep(100)", timeout: 200 }]);
    pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    await server.client.close();
    expect(Date.now() - started).toBeLessThan(1900);
    await expect(pending).rejects.toThrow(/closed/i);
    expect(await waitFor(() => !isProcessAlive(server.pid) && !isProcessAlive(kernelPid), 5000)).toBe(true);
  });

  it("shuts its kernel down when terminated with SIGTERM", async () => {
    const server = await startServer();
    const result = await callEval(server.client, [{ code: "import os\nos.getpid()" }]);
    const kernelPid = Number(/\d+/.exec(textOf(result).split("\n").slice(1).join("\n"))?.[0]);
    expect(isProcessAlive(kernelPid)).toBe(true);
    process.kill(server.pid, "SIGTERM");
    expect(await waitFor(() => !isProcessAlive(server.pid) && !isProcessAlive(kernelPid), 5000)).toBe(true);
  });
});
