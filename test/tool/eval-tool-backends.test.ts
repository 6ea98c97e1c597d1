// Backend exposure: EVALKIT_PY/EVALKIT_JS and options narrow what is advertised; JS takes over when Python is broken.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findProcesses } from "../helpers/processes.js";
import { cleanupTools, FIXTURES, makeTool, textOf } from "./tool-helpers.js";

afterEach(cleanupTools);

const BROKEN_PYTHON = path.join(FIXTURES, "tool-broken-python.sh");

// biome-ignore lint/suspicious/noExplicitAny: walking a JSON Schema document
const languageEnum = (schema: any): string[] => schema.properties.cells.items.properties.language.enum;

describe("eval tool backends", () => {
  it("runs cells without a language as JavaScript when the Python preflight fails", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, flagsEnv: {} });
    const result = await tool.execute({ cells: [{ code: "const a = 20; a + 22" }, { code: "a * 2" }] });
    expect(result.details.cells.map((c) => [c.language, c.status])).toEqual([
      ["js", "ok"],
      ["js", "ok"],
    ]);
    expect(result.details.cells[0]?.text).toBe("42\n");
    expect(result.details.cells[0]?.notices?.[0]).toMatch(/Python is unavailable .*ran as JavaScript/);
  });

  it("fails an explicit py cell with an availability error in the result, not a throw", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, flagsEnv: {} });
    const result = await tool.execute({
      cells: [
        { language: "js", code: "1" },
        { language: "py", code: "print(1)" },
        { language: "js", code: "2" },
      ],
    });
    expect(result.details.cells.map((c) => c.status)).toEqual(["ok", "error", "skipped"]);
    const failed = result.details.cells[1]!;
    expect(failed.error?.ename).toBe("PythonUnavailable");
    expect(failed.error?.evalue).toContain(BROKEN_PYTHON);
    expect(failed.error?.evalue).toContain('use language "js"');
    expect(textOf(result)).toContain("PythonUnavailable");
  });

  it("advertises only JavaScript once the Python check has failed", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, flagsEnv: {} });
    expect(languageEnum(tool.inputSchema)).toContain("py");
    const status = await tool.checkBackends();
    expect(status.py).toMatchObject({ enabled: true, available: false });
    expect(status.js).toMatchObject({ enabled: true, available: true });
    expect(languageEnum(tool.inputSchema)).toEqual(["js", "javascript"]);
    expect(tool.description).not.toMatch(/%pip|Python/);
    expect(tool.description).toContain("JavaScript");
  });

  it("with EVALKIT_PY=0 advertises and accepts only JavaScript", async () => {
    const tool = makeTool({ flagsEnv: { EVALKIT_PY: "0" } });
    expect(languageEnum(tool.inputSchema)).toEqual(["js", "javascript"]);
    expect(tool.description).not.toContain("%pip");
    await expect(tool.execute({ cells: [{ language: "py", code: "1" }] })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("Python cells are turned off here (EVALKIT_PY=0"),
    });
    const result = await tool.execute({ cells: [{ code: "6 * 7" }] });
    expect(result.details.cells[0]).toMatchObject({ language: "js", status: "ok", text: "42\n" });
  });

  it("with js: false advertises only Python, and EVALKIT_JS=1 brings JavaScript back", () => {
    const pyOnly = makeTool({ js: false, flagsEnv: {} });
    expect(languageEnum(pyOnly.inputSchema)).toEqual(["py", "python"]);
    expect(pyOnly.description).not.toContain("JavaScript");
    expect(pyOnly.description).toContain("%pip");
    const both = makeTool({ js: false, flagsEnv: { EVALKIT_JS: "1" } });
    expect(languageEnum(both.inputSchema).sort()).toEqual(["javascript", "js", "py", "python"]);
  });

  it("without JavaScript, a broken Python fails the cell and names the interpreter", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, js: false, flagsEnv: {} });
    const result = await tool.execute({ cells: [{ code: "1" }] });
    expect(result.details.cells[0]?.status).toBe("error");
    expect(result.details.cells[0]?.error?.evalue).toContain(BROKEN_PYTHON);
    expect(result.details.cells[0]?.error?.evalue).not.toContain('language "js"');
  });
});

describe("warming the tool", () => {
  it("starts the kernel a plain cell uses before the first call; that call runs on it as cell 1", async () => {
    const tool = makeTool({ flagsEnv: {} });
    await tool.warm();
    const kernels = findProcesses("evalkit-kernel python").filter((pid) => {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid;
    });
    expect(kernels).toHaveLength(1);
    const result = await tool.execute({ cells: [{ code: "import os\nos.getpid()" }] });
    expect(result.details.cells[0]).toMatchObject({ language: "py", status: "ok", executionCount: 1 });
    expect(result.details.cells[0]?.text.trim()).toBe(String(kernels[0]));
    expect(result.details.cells[0]?.notices ?? []).toEqual([]);
  });

  it("warms the JavaScript kernel when Python is broken, and never throws", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, flagsEnv: {} });
    await expect(tool.warm()).resolves.toBeUndefined();
    const result = await tool.execute({ cells: [{ code: "20 + 22" }] });
    expect(result.details.cells[0]).toMatchObject({ language: "js", status: "ok", executionCount: 1 });
  });

  it("resolves without a kernel when no backend works, leaving the call to say why", async () => {
    const tool = makeTool({ python: BROKEN_PYTHON, js: false, flagsEnv: {} });
    await expect(tool.warm()).resolves.toBeUndefined();
    const result = await tool.execute({ cells: [{ code: "print(1)" }] });
    expect(result.details.cells[0]?.status).toBe("error");
    expect(textOf(result)).toContain(BROKEN_PYTHON);
  });
});
