// One tools/call of the eval tool validates its arguments once, in the tool: the MCP layer passes them through.
import { describe, expect, it } from "vitest";
import { EvalkitError } from "../../src/errors.js";
import { runEvalToolCall } from "../../src/mcp/eval-call.js";
import type { EvalTool } from "../../src/tool/eval-tool.js";
import type { EvalToolResult } from "../../src/tool/run-call.js";

const context = {
  signal: new AbortController().signal,
  progressToken: undefined,
  sendProgress: () => {},
  heartbeatMs: 60_000,
};

/** A tool whose schema must not be consulted by the MCP layer, and whose execute does the one parse. */
function createStubTool(execute: (input: unknown) => Promise<EvalToolResult>): EvalTool {
  return {
    execute,
    get zodSchema(): never {
      throw new Error("the MCP layer parsed the arguments itself");
    },
  } as unknown as EvalTool;
}

describe("runEvalToolCall", () => {
  it("hands the arguments to the tool as they came, without parsing them first", async () => {
    const seen: unknown[] = [];
    const args = { cells: [{ code: "1+1" }] };
    const tool = createStubTool(async (input) => {
      seen.push(input);
      return { content: [{ type: "text", text: "2" }], details: { ok: true, cells: [] } };
    });
    const result = await runEvalToolCall(tool, args, context);
    expect(seen).toEqual([args]);
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: "text", text: "2" }]);
  });

  it("turns the tool's INVALID_INPUT into a tool error listing each problem and the expected shape", async () => {
    const tool = createStubTool(async () => {
      throw new EvalkitError("INVALID_INPUT", "invalid eval input: x", {
        field: "cells",
        problems: ["cells: required", 'timeout: expected a number, got "x"'],
      });
    });
    const result = await runEvalToolCall(tool, undefined, context);
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^invalid eval input: cells: required; timeout: expected a number, got "x"\n/);
    expect(text).toContain('expected {"cells": [{"code": "..."');
  });
});
