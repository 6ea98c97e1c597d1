// `evalkit mcp --runtime NAME=COMMAND`: a protocol runner's language served to a real MCP client over stdio, in the
// tool's schema and through eval calls that keep its state, beside Python.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireOrExplainSkip } from "../helpers/required.js";
import { findPerlMissing, PERL_RUNNER } from "../protocol/runtimes.js";
import { buildCli, callEval, closeServers, startServer, textOf } from "./mcp-helpers.js";

const perlMissing = findPerlMissing();
requireOrExplainSkip("evalkit mcp --runtime with the Perl runner", perlMissing);

beforeAll(buildCli, 120_000);
afterAll(closeServers);

describe.skipIf(perlMissing !== undefined)("evalkit mcp --runtime", () => {
  it("lists the runtime's language in the eval tool and runs its cells with state kept, beside Python", async () => {
    const { client } = await startServer({ args: ["--runtime", `perl=perl ${PERL_RUNNER}`] });
    const { tools } = await client.listTools();
    const schema = JSON.stringify(tools.find((tool) => tool.name === "eval")?.inputSchema ?? {});
    expect(schema).toContain('"perl"');
    const first = await callEval(client, [
      { language: "perl", code: 'our $kept = 20; print "from perl\\n";' },
      { language: "py", code: "6 * 7" },
    ]);
    expect(first.isError).not.toBe(true);
    expect(textOf(first)).toContain("from perl");
    expect(textOf(first)).toContain("42");
    const second = await callEval(client, [{ language: "perl", code: "$kept + 1" }]);
    expect(textOf(second)).toContain("21");
  }, 60_000);
});
