// The eval tool on a real Jupyter server: Python and R cells, state, images, timeouts, stdin, jobs, errors, cleanup.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/index.js";
import {
  findJupyterFlavours,
  irkernelUnavailable,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../helpers/jupyter-server.js";
import { requireOrExplainSkip } from "../helpers/required.js";

const { found, missing } = isJupyterIntegration ? findJupyterFlavours() : { found: [], missing: [] };
const noR = isJupyterIntegration ? irkernelUnavailable() : undefined;
if (isJupyterIntegration) {
  for (const why of missing) requireOrExplainSkip("a Jupyter server flavour", why);
  requireOrExplainSkip("R cells on a Jupyter server", noR);
}
// Every flavour runs the Python and R basics; the rest runs on the newest server found.
const newest = found[found.length - 1];
const tools: EvalTool[] = [];

function makeTool(server: TestJupyterServer, extra: Parameters<typeof createEvalTool>[0] = {}): EvalTool {
  const tool = createEvalTool({ jupyter: { url: server.url, token: server.token }, flagsEnv: {}, ...extra });
  tools.push(tool);
  return tool;
}

async function disposeAll(): Promise<void> {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
}

describe.runIf(isJupyterIntegration && found.length > 0).each(found)(
  "eval tool on $name $version",
  (flavour) => {
    let server: TestJupyterServer;
    beforeAll(async () => {
      server = await startJupyterServer(flavour);
    }, 90_000);
    afterAll(async () => {
      await disposeAll();
      await server?.stop();
    }, 60_000);

    it.runIf(noR === undefined)(
      "runs Python and R cells on the server's kernels, keeps each language's state across calls, and shows an R plot as an image",
      async () => {
        const tool = makeTool(server);
        const first = await tool.execute({
          cells: [
            { code: "x = 40\nprint('py ready')" },
            { language: "r", code: "y <- 2\ncat('r ready\\n')" },
          ],
        });
        expect(first.details.cells.map((c) => [c.language, c.status])).toEqual([
          ["py", "ok"],
          ["r", "ok"],
        ]);
        const second = await tool.execute({
          cells: [
            { language: "python", code: "x + 2" },
            { language: "R", code: "plot(1:10)\nx <- y * 21\nprint(x)" },
          ],
        });
        expect(second.details.ok).toBe(true);
        expect(second.details.cells[0]?.text).toBe("42\n");
        expect(second.details.cells[1]?.text).toContain("[1] 42");
        expect(second.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(
          true,
        );
        expect((await server.listKernels()).map((k) => k.name).sort()).toEqual(["ir", "python3"]);
        await tool.dispose();
        expect(await server.listKernels()).toEqual([]);
      },
      120_000,
    );
  },
);

describe.runIf(isJupyterIntegration && newest !== undefined)(
  `eval tool on ${newest?.name} (behaviour)`,
  () => {
    let server: TestJupyterServer;
    let tool: EvalTool;
    beforeAll(async () => {
      server = await startJupyterServer(newest!);
      tool = makeTool(server, { interruptGraceMs: 1500 });
    }, 90_000);
    afterAll(async () => {
      await disposeAll();
      await server?.stop();
    }, 60_000);

    it("names the server's languages in its description and schema once the backends are checked", async () => {
      const status = await tool.checkBackends();
      expect(status.jupyter?.available).toBe(true);
      expect(status.jupyter?.languages.map((l) => l.language)).toContain("py");
      expect(tool.description).toContain('"py" (Python 3 (ipykernel))');
      expect(JSON.stringify(tool.inputSchema)).toContain("Jupyter server");
    });

    it("fails a cell in a language the server lacks with a message listing what it offers, and starts nothing", async () => {
      const before = (await server.listKernels()).length;
      const result = await tool.execute({
        cells: [{ language: "cobol", code: "DISPLAY 'HI'." }, { code: "1" }],
      });
      expect(result.details.cells.map((c) => c.status)).toEqual(["error", "skipped"]);
      expect(result.details.cells[0]?.error?.ename).toBe("LanguageUnavailable");
      expect(result.details.cells[0]?.text).toMatch(
        /no kernel for language "cobol"; it offers "py" \(python3/,
      );
      expect((await server.listKernels()).length).toBe(before);
    });

    it("interrupts a cell at its timeout through the server and keeps the kernel and its state", async () => {
      await tool.execute({ cells: [{ code: "survivor = 7" }] });
      const result = await tool.execute({ cells: [{ code: "while True: pass", timeout: 1 }] });
      expect(result.details.cells[0]?.status).toBe("timeout");
      expect(result.details.cells[0]?.notices?.join("\n")).toContain("interrupted");
      const after = await tool.execute({ cells: [{ code: "survivor" }] });
      expect(after.details.cells[0]?.text).toBe("7\n");
    }, 60_000);

    it("kills a kernel that ignores the interrupt after the grace, says state was lost, and gives the next call a fresh one", async () => {
      await tool.execute({ cells: [{ code: "lost = 1" }] });
      const result = await tool.execute({
        cells: [
          {
            code: "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)",
            timeout: 1,
          },
        ],
      });
      expect(result.details.cells[0]?.status).toBe("killed");
      expect(result.details.cells[0]?.notices?.join("\n")).toContain("state was lost");
      const next = await tool.execute({ cells: [{ code: "'lost' in globals()" }] });
      expect(next.details.cells[0]?.text).toBe("False\n");
      expect(next.details.cells[0]?.notices?.join("\n")).toContain("killed");
      // The killed kernel's DELETE may still run: the server asks it to shut down before it kills it.
      await expect.poll(async () => (await server.listKernels()).length, { timeout: 20_000 }).toBe(1);
    }, 60_000);

    it("fails input() at once, as a local kernel does", async () => {
      const startedAt = performance.now();
      const result = await tool.execute({ cells: [{ code: "input('name? ')" }] });
      expect(result.details.cells[0]?.status).toBe("error");
      expect(result.details.cells[0]?.error?.ename).toBe("StdinNotImplementedError");
      expect(performance.now() - startedAt).toBeLessThan(10_000);
    });

    it("returns a job handle at yieldAfter and collects the rest of the output with a later job call", async () => {
      const started = await tool.execute({
        cells: [{ code: "import time\nprint('begin', flush=True)\ntime.sleep(1.5)\nprint('end')" }],
        yieldAfter: 0.3,
      });
      expect(started.details.job?.state).toBe("running");
      const id = started.details.job?.id ?? "";
      const finished = await tool.execute({ job: id, wait: 20 });
      expect(finished.details.job?.state).toBe("done");
      const text = [started, finished].map((r) => r.details.cells[0]?.text ?? "").join("");
      expect(text).toContain("begin");
      expect(text).toContain("end");
    }, 60_000);

    it("restarts the language's kernel on reset, so its state is gone", async () => {
      await tool.execute({ cells: [{ code: "before_reset = 1" }] });
      const result = await tool.execute({ cells: [{ code: "'before_reset' in globals()", reset: true }] });
      expect(result.details.cells[0]?.text).toBe("False\n");
      expect((await server.listKernels()).length).toBe(1);
    }, 60_000);

    it("redacts the server's token when a cell prints it", async () => {
      const result = await tool.execute({ cells: [{ code: `print(${JSON.stringify(server.token)})` }] });
      expect(result.details.cells[0]?.text).not.toContain(server.token);
      expect(result.details.cells[0]?.text).toContain("REDACTED");
    });

    it("keeps the token out of local kernels: a js cell does not see EVALKIT_JUPYTER_TOKEN", async () => {
      const saved = process.env.EVALKIT_JUPYTER_TOKEN;
      process.env.EVALKIT_JUPYTER_TOKEN = server.token;
      try {
        const local = makeTool(server);
        const result = await local.execute({
          cells: [{ language: "js", code: "String(process.env.EVALKIT_JUPYTER_TOKEN)" }],
        });
        expect(result.details.cells[0]?.language).toBe("js");
        expect(result.details.cells[0]?.text).toBe("'undefined'\n");
        await local.dispose();
      } finally {
        if (saved === undefined) delete process.env.EVALKIT_JUPYTER_TOKEN;
        else process.env.EVALKIT_JUPYTER_TOKEN = saved;
      }
    });

    it("reports a refused token as a cell error that names the URL and what to do, without hanging", async () => {
      const wrong = createEvalTool({ jupyter: { url: server.url, token: "wrong-token-123" }, flagsEnv: {} });
      tools.push(wrong);
      const result = await wrong.execute({ cells: [{ code: "1" }] });
      expect(result.details.cells[0]?.status).toBe("error");
      expect(result.details.cells[0]?.text).toContain(`${server.url}/`);
      expect(result.details.cells[0]?.text).toContain("HTTP 403");
      expect(result.details.cells[0]?.text).toContain("EVALKIT_JUPYTER_TOKEN");
    });

    it("reports an unreachable server as a cell error that names the URL, within the request timeout", async () => {
      const down = createEvalTool({ jupyter: { url: "http://127.0.0.1:9" }, flagsEnv: {} });
      tools.push(down);
      const result = await down.execute({ cells: [{ code: "1" }] });
      expect(result.details.cells[0]?.status).toBe("error");
      expect(result.details.cells[0]?.text).toContain(
        "cannot reach the Jupyter server at http://127.0.0.1:9/",
      );
    });

    it("leaves no kernel on the server once the tool is disposed", async () => {
      await tool.execute({ cells: [{ code: "1" }] });
      expect((await server.listKernels()).length).toBeGreaterThan(0);
      await tool.dispose();
      expect(await server.listKernels()).toEqual([]);
    });
  },
);

describe.runIf(isJupyterIntegration && newest !== undefined)(
  `eval tool on ${newest?.name} (a broken kernelspec)`,
  () => {
    let server: TestJupyterServer;
    beforeAll(async () => {
      server = await startJupyterServer(newest!, {
        kernelspecs: {
          broken: {
            argv: ["/nonexistent/bin/kernel", "-f", "{connection_file}"],
            display_name: "Broken",
            language: "brokenlang",
          },
        },
      });
    }, 90_000);
    afterAll(async () => {
      await disposeAll();
      await server?.stop();
    }, 60_000);

    it("fails a cell whose kernelspec cannot start with the server's reason, quickly, and leaves nothing behind", async () => {
      const tool = makeTool(server);
      const startedAt = performance.now();
      const result = await tool.execute({ cells: [{ language: "brokenlang", code: "x" }] });
      expect(result.details.cells[0]?.status).toBe("error");
      expect(result.details.cells[0]?.text).toContain(
        `the Jupyter server at ${server.url}/ answered POST /api/kernels with HTTP 500`,
      );
      expect(performance.now() - startedAt).toBeLessThan(30_000);
      expect(await server.listKernels()).toEqual([]);
      // The server's working kernels are unaffected.
      expect((await tool.execute({ cells: [{ code: "1+1" }] })).details.cells[0]?.text).toBe("2\n");
    }, 60_000);
  },
);
