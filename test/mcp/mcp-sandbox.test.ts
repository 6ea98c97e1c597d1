// `evalkit mcp --sandbox` and its limit flags reach every kernel the server starts; a missing bwrap fails calls.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

const noSandbox = sandboxSkipReason;

describe("evalkit mcp with the sandbox flags", () => {
  it.skipIf(noSandbox !== "")(
    `runs cells sandboxed, under the memory limit, with usage ${noSandbox}`,
    async () => {
      const server = await startServer({ args: ["--sandbox", "--memory-mb", "200"] });
      const result = await callEval(server.client, [
        { code: "import os\nprint(os.getpid() < 10, os.path.exists(os.path.expanduser('~/.bash_history')))" },
      ]);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("True False");
      const details = result.structuredContent as { cells: { usage?: { cpuMs: number } }[] };
      expect(details.cells[0]?.usage?.cpuMs).toBeGreaterThanOrEqual(0);
      const hog = await callEval(server.client, [{ code: "x = bytearray(400 * 1024 * 1024)" }]);
      expect(textOf(hog)).toContain("MemoryError");
    },
    60_000,
  );

  it("answers calls with the reason when EVALKIT_SANDBOX=1 and bwrap is not on PATH", async () => {
    const server = await startServer({ env: { EVALKIT_SANDBOX: "1", PATH: "/nonexistent" } });
    const result = await callEval(server.client, [{ code: "1 + 1" }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("bwrap was not found on PATH");
  }, 60_000);
});
