// `evalkit mcp --jupyter URL` through the MCP SDK's client over stdio: the server's languages, state, no kernel left.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findJupyterFlavours,
  irkernelUnavailable,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../helpers/jupyter-server.js";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

const flavour = isJupyterIntegration ? findJupyterFlavours().found.at(-1) : undefined;
const hasR = isJupyterIntegration && irkernelUnavailable() === undefined;
// Missing servers and R are reported (and fail CI) by test/tool/jupyter-tool.test.ts.

describe.runIf(flavour !== undefined && hasR)("evalkit mcp --jupyter", () => {
  let server: TestJupyterServer;
  beforeAll(async () => {
    await buildCli();
    server = await startJupyterServer(flavour!);
  }, 120_000);
  afterAll(async () => {
    await closeServers();
    await server?.stop();
  }, 30_000);

  it("lists the server's languages, runs Python and R with state kept across calls, returns an R plot as an image, and deletes its kernels when the client goes", async () => {
    const mcp = await startServer({
      args: ["--jupyter", server.url],
      env: { EVALKIT_JUPYTER_TOKEN: server.token },
    });
    const { tools } = await mcp.client.listTools();
    const description = tools.find((t) => t.name === "eval")?.description ?? "";
    expect(description).toContain('"py" (Python 3 (ipykernel))');
    expect(description).toContain('"r" (R)');

    await callEval(mcp.client, [{ code: "total = 40" }, { language: "r", code: "v <- c(1, 2)" }]);
    const result = await callEval(mcp.client, [
      { code: "total + 2" },
      { language: "r", code: "sum(v) * 17" },
    ]);
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("[1/2] python\n42");
    expect(textOf(result)).toContain("[2/2] r\n51");

    const plot = await callEval(mcp.client, [{ language: "r", code: "plot(1:10)" }]);
    expect(plot.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(true);

    const unknown = await callEval(mcp.client, [{ language: "cobol", code: "x" }]);
    expect(textOf(unknown)).toContain('no kernel for language "cobol"');

    expect((await server.listKernels()).map((k) => k.name).sort()).toEqual(["ir", "python3"]);
    await mcp.close();
    await expect.poll(async () => (await server.listKernels()).length, { timeout: 20_000 }).toBe(0);
  }, 120_000);
});
