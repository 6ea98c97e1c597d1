// MCP server options: validation naming the option, defaults, and the eval tool options they turn into.
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { MCP_RETAIN_STREAM_CHARS, resolveMcpServerOptions } from "../../src/mcp/server-options.js";

function problemOf(fn: () => unknown): { field: unknown; message: string } {
  try {
    fn();
  } catch (err) {
    if (isEvalkitError(err, "INVALID_INPUT")) return { field: err.details.field, message: err.message };
    throw err;
  }
  throw new Error("expected INVALID_INPUT");
}

describe("MCP server options", () => {
  it("puts artifacts under EVALKIT_HOME and caps retained stream text", () => {
    const home = path.join(os.tmpdir(), "evalkit-home-x");
    const resolved = resolveMcpServerOptions({ env: { EVALKIT_HOME: home }, python: "python3" });
    expect(resolved.artifactsDir).toBe(path.join(home, "artifacts"));
    expect(resolved.toolSettings).toMatchObject({
      python: "python3",
      artifactsDir: path.join(home, "artifacts"),
      cwd: process.cwd(),
      output: { retainStreamChars: MCP_RETAIN_STREAM_CHARS },
    });
    expect(resolved.samplingMaxTokens).toBe(4096);
  });

  it("lets tool options override the output cap", () => {
    const resolved = resolveMcpServerOptions({ tool: { output: { retainStreamChars: 10 } } });
    expect(resolved.toolSettings.output).toEqual({ retainStreamChars: 10 });
  });

  it("rejects a missing working directory, naming cwd", () => {
    const problem = problemOf(() => resolveMcpServerOptions({ cwd: "/no/such/dir/evalkit" }));
    expect(problem.field).toBe("cwd");
    expect(problem.message).toContain("/no/such/dir/evalkit");
  });

  it("rejects unknown options and bad numbers, naming them", () => {
    expect(problemOf(() => resolveMcpServerOptions({ pyhton: "x" } as never)).message).toContain(
      "pyhton: unknown key",
    );
    expect(problemOf(() => resolveMcpServerOptions({ samplingMaxTokens: 0 })).field).toBe(
      "samplingMaxTokens",
    );
  });

  it("reads EVALKIT_PY / EVALKIT_JS from the given environment", () => {
    const problem = problemOf(() => resolveMcpServerOptions({ env: { EVALKIT_PY: "maybe" } }));
    expect(problem.field).toBe("EVALKIT_PY");
  });
});
