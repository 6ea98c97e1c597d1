// `evalkit exec --jupyter URL` as a user runs it (bin/evalkit.js): Python and R cells on a real server, clean exit.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import {
  findJupyterFlavours,
  irkernelUnavailable,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../helpers/jupyter-server.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const flavour = isJupyterIntegration ? findJupyterFlavours().found.at(-1) : undefined;
const hasR = isJupyterIntegration && irkernelUnavailable() === undefined;
// Missing servers and R are reported (and fail CI) by test/tool/jupyter-tool.test.ts.

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const name of Object.keys(childEnv))
      if (name.startsWith("EVALKIT_JUPYTER") && !(name in env)) delete childEnv[name];
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), ...args], { env: childEnv });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe.runIf(flavour !== undefined)("evalkit exec --jupyter", () => {
  let server: TestJupyterServer;
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    server = await startJupyterServer(flavour!);
    dir = mkdtempSync(path.join(tmpdir(), "evalkit-exec-jupyter-"));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it.runIf(hasR)(
    "runs Python and R cells with the token from a file, prints their output, saves an R plot, and leaves no kernel behind",
    async () => {
      const tokenFile = path.join(dir, "token");
      writeFileSync(tokenFile, `${server.token}\n`);
      const script = path.join(dir, "sum.R");
      writeFileSync(script, "x <- 1:5\nprint(sum(x))\nplot(x)\n");
      const images = path.join(dir, "images");
      const run = await runCli(
        [
          "exec",
          "--jupyter",
          server.url,
          "--jupyter-token-file",
          tokenFile,
          "--images",
          images,
          "-c",
          "n = 6\nprint(n * 7)",
          script,
        ],
        {},
      );
      expect(readdirSync(images).some((name) => name.endsWith(".png"))).toBe(true);
      expect(run.err).toBe("");
      expect(run.out).toContain("42");
      expect(run.out).toContain("[1] 15");
      expect(run.out).toContain("sum.R (r)");
      expect(run.code).toBe(0);
      expect(await server.listKernels()).toEqual([]);
    },
    90_000,
  );

  it.runIf(hasR)(
    "runs an R notebook's cells on the server's R kernel and writes their outputs back",
    async () => {
      const notebook = path.join(ROOT, "test", "fixtures", "notebook-r-kernel.ipynb");
      const out = path.join(dir, "executed.ipynb");
      const run = await runCli(["exec", "--jupyter", server.url, notebook, "--output-notebook", out], {
        EVALKIT_JUPYTER_TOKEN: server.token,
      });
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/speed/);
      const executed = JSON.parse(readFileSync(out, "utf8")) as { cells: { outputs: unknown[] }[] };
      expect(executed.cells[0]?.outputs.length).toBeGreaterThan(0);
    },
    90_000,
  );

  it("takes the URL and token from EVALKIT_JUPYTER_URL and EVALKIT_JUPYTER_TOKEN and exits 1 on a cell error", async () => {
    const run = await runCli(["exec", "--json", "-c", "1/0"], {
      EVALKIT_JUPYTER_URL: server.url,
      EVALKIT_JUPYTER_TOKEN: server.token,
    });
    expect(run.code).toBe(1);
    const details = JSON.parse(run.out) as { cells: { status: string; error?: { ename: string } }[] };
    expect(details.cells[0]?.status).toBe("error");
    expect(details.cells[0]?.error?.ename).toBe("ZeroDivisionError");
    expect(await server.listKernels()).toEqual([]);
  }, 60_000);

  it("exits 1 with one line naming the URL and the token's settings when the server refuses the token", async () => {
    const run = await runCli(["exec", "--jupyter", server.url, "-c", "1"], {
      EVALKIT_JUPYTER_TOKEN: "not-the-token",
    });
    expect(run.code).toBe(1);
    expect(run.err).toContain(`refused the request (HTTP 403)`);
    expect(run.err).toContain(server.url);
    expect(run.err).not.toContain("not-the-token");
  }, 30_000);

  it("refuses a URL that carries the token, which ps would show", async () => {
    const run = await runCli(["exec", "--jupyter", `${server.url}/?token=${server.token}`, "-c", "1"], {});
    expect(run.code).toBe(2);
    expect(run.err).toContain("the URL carries credentials");
    expect(run.err).not.toContain(server.token);
  }, 30_000);
});
