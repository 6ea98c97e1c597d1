// `evalkit repl --jupyter URL` with piped input: Python and R on a real server, input(), and no kernel left after exit.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../helpers/build.js";
import {
  findJupyterFlavours,
  irkernelUnavailable,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../../helpers/jupyter-server.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const flavour = isJupyterIntegration ? findJupyterFlavours().found.at(-1) : undefined;
const hasR = isJupyterIntegration && irkernelUnavailable() === undefined;
// Missing servers and R are reported (and fail CI) by test/tool/jupyter-tool.test.ts.

function runRepl(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), "repl", ...args], {
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
    child.stdin.end(input);
  });
}

describe.runIf(flavour !== undefined && hasR)("evalkit repl --jupyter", () => {
  let server: TestJupyterServer;
  beforeAll(async () => {
    await ensureBuilt();
    server = await startJupyterServer(flavour!);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  it("runs Python on the server, switches to R with :r, answers input from the terminal, and deletes its kernels at exit", async () => {
    const input = [
      "x = 5",
      "x * 2",
      ":r",
      "y <- 3",
      "y * 14",
      ":py print(x + 1)",
      ":cobol",
      'n <- readline("who? ")',
      "bob",
      "n",
      "",
    ].join("\n");
    const { code, out } = await runRepl(["--jupyter", server.url], input, {
      EVALKIT_JUPYTER_TOKEN: server.token,
    });
    expect(code).toBe(0);
    expect(out).toMatch(/evalkit repl · Python 3\.\d+/);
    expect(out).toContain("Out[2]: 10");
    // A person sees R's own text/plain, as a terminal R session prints it (the model gets the markdown view).
    expect(out).toMatch(/r \[2\]: y \* 14\n\[1\] 42/);
    expect(out).toMatch(/print\(x \+ 1\)\n6/);
    expect(out).toContain('no kernel for language "cobol"');
    expect(out).toContain('[1] "bob"');
    expect(await server.listKernels()).toEqual([]);
  }, 90_000);
});
