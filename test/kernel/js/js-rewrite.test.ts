import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { rewriteJsCell } from "../../../src/kernel/js/js-rewrite.js";
import { mapColumn } from "../../../src/kernel/js/source-edits.js";

describe("rewriteJsCell", () => {
  it("turns top-level let and const into var declarations so a later cell may declare them again", () => {
    const out = rewriteJsCell("const x = 1;\nlet y;\nx");
    expect(out.isAsync).toBe(false);
    expect(out.hasResult).toBe(true);
    expect(out.code).toBe("var   x = 1;\nvar y = undefined;\nx");
  });

  it("keeps column positions of a rewritten const so stack columns still match the user's code", () => {
    const out = rewriteJsCell("const a = b;");
    expect(out.code.indexOf("b")).toBe("const a = b;".indexOf("b"));
  });

  it("makes class declarations global assignments", () => {
    const out = rewriteJsCell("class C { m() { return 1 } }");
    const context: Record<string, unknown> = {};
    runInNewContext(out.code, context);
    expect(typeof context.C).toBe("function");
  });

  it("does not treat block-scoped declarations inside blocks or loop heads as globals", () => {
    const out = rewriteJsCell("for (let i = 0; i < 1; i++) { const inner = i }\n{ let b = 1 }");
    expect(out.code).toContain("for (let i = 0;");
    expect(out.code).toContain("const inner");
    expect(out.code).toContain("let b = 1");
  });

  it("wraps cells with top-level await in an async function that returns the last expression", async () => {
    const out = rewriteJsCell("const {a, b: [c]} = {a: 1, b: [2]};\nawait null;\na + c");
    expect(out.isAsync).toBe(true);
    expect(out.lineOffset).toBe(-1);
    const context: Record<string, unknown> = {};
    await expect(runInNewContext(out.code, context)).resolves.toBe(3);
    expect(context.a).toBe(1);
    expect(context.c).toBe(2);
  });

  it("keeps every user line on the same line number after wrapping", () => {
    const source = "const a = 1,\n  b = 2;\nawait 0;\nfunction f() {}\nclass K {}\nthrow new Error('here')";
    const out = rewriteJsCell(source);
    const lines = out.code.split("\n");
    expect(lines.length).toBe(source.split("\n").length + 2);
    expect(lines[6]).toContain("throw new Error('here')");
  });

  it("hoists functions, classes and nested var declarations out of the async wrapper", async () => {
    const out = rewriteJsCell(
      "await 0;\nfunction f() { return 7 }\nclass K {}\nfor (var i = 0; i < 3; i++) { var last = i }\nlet none;",
    );
    const context: Record<string, unknown> = {};
    await runInNewContext(out.code, context);
    expect(typeof context.f).toBe("function");
    expect(typeof context.K).toBe("function");
    expect(context.i).toBe(3);
    expect(context.last).toBe(2);
    expect("none" in context).toBe(true);
  });

  it("rewrites dynamic import() and static imports to the kernel's import helper", () => {
    const dynamic = rewriteJsCell("const m = import('node:os')");
    expect(dynamic.code).toContain("__evalkit_import('node:os')");
    const statics = rewriteJsCell(
      "import path, { join as j } from 'node:path'\nimport * as os from 'node:os'\nj('a')",
    );
    expect(statics.isAsync).toBe(true);
    expect(statics.code).toContain('{default: path, join: j} = await __evalkit_import("node:path")');
    expect(statics.code).toContain('os = await __evalkit_import("node:os")');
  });

  it("reports a result only when the cell ends with an expression (a lone string counts)", () => {
    expect(rewriteJsCell("const x = 1").hasResult).toBe(false);
    expect(rewriteJsCell("function f() {}").hasResult).toBe(false);
    expect(rewriteJsCell("'text'").hasResult).toBe(true);
    expect(rewriteJsCell("x = 1; x").hasResult).toBe(true);
  });

  it("maps columns of the rewritten code back to the user's columns", () => {
    const out = rewriteJsCell("await 0;\nx = await import('node:os')");
    const line = out.code.split("\n")[2] ?? "";
    const generatedColumn = line.indexOf("'node:os'") + 1;
    expect(mapColumn(out.columnShifts, 2, generatedColumn)).toBe(
      "x = await import('node:os')".indexOf("'node:os'") + 1,
    );
  });

  it("passes unparseable code through untouched so the engine reports the syntax error", () => {
    const out = rewriteJsCell("let a = ;");
    expect(out.isParsed).toBe(false);
    expect(out.code).toBe("let a = ;");
  });
});

describe("rewriteJsCell after an await", () => {
  it("returns a parenthesised object literal as the cell's value instead of a syntax error", async () => {
    const out = rewriteJsCell("await 1; ({a: 1})");
    expect(out.isAsync).toBe(true);
    const value = await (runInNewContext(out.code, {}) as Promise<unknown>);
    expect(value).toEqual({ a: 1 });
  });

  it("returns the last expression with or without its semicolon", async () => {
    for (const code of ["await 1; (2 + 3);", "await 1;\n(2 + 3)", "await 1; 2 + 3"]) {
      expect(await (runInNewContext(rewriteJsCell(code).code, {}) as Promise<unknown>), code).toBe(5);
    }
  });
});
