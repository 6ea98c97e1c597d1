import { describe, expect, it } from "vitest";
import type { CellResult } from "../../src/contracts/cell-result.js";
import {
  renderCodeBlock,
  renderToolCell,
  renderToolCellHeader,
  renderToolTranscript,
} from "../../src/render/tool-render.js";

function cell(overrides: Partial<CellResult> = {}): CellResult {
  return {
    index: 0,
    language: "py",
    status: "ok",
    executionCount: 1,
    durationMs: 1234,
    text: "",
    outputs: [],
    ...overrides,
  };
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `out ${i + 1}`).join("\n") + "\n";

describe("tool renderer", () => {
  it("heads each cell with index, title, language, status and duration", () => {
    expect(renderToolCellHeader(cell({ index: 1, title: "load data" }), 3)).toBe(
      "[2/3] load data (py) — ok, 1.2 s",
    );
    expect(renderToolCellHeader(cell({ language: "js", durationMs: 12 }), 1)).toBe("[1/1] (js) — ok, 12 ms");
  });

  it("shows the code in a fenced block for the cell's language", () => {
    const text = renderToolCell({ result: cell({ text: "2\n" }), code: "1 + 1" });
    expect(text).toBe("[1/1] (py) — ok, 1.2 s\n```python\n1 + 1\n```\n2");
  });

  it("picks a fence longer than any backtick run in the code", () => {
    expect(renderCodeBlock('s = """```"""', "python")).toBe('````python\ns = """```"""\n````');
  });

  it("collapses output to a 10-line preview with a count of the hidden lines", () => {
    const text = renderToolCell({
      result: cell({ text: numbered(25) }),
      code: "for i in range(25): print(i)",
    });
    expect(text).toContain("out 10\n… 15 more lines (expand)");
    expect(text).not.toContain("out 11");
  });

  it("shows everything retained in expanded mode", () => {
    const text = renderToolCell({ result: cell({ text: numbered(25) }), code: "x" }, { expanded: true });
    expect(text).toContain("out 25");
    expect(text).not.toContain("(expand)");
  });

  it("honours a custom preview length", () => {
    const text = renderToolCell({ result: cell({ text: numbered(5) }), code: "x" }, { previewLines: 2 });
    expect(text).toContain("out 2\n… 3 more lines (expand)");
  });

  it("gives each way a cell can end its own visible notice", () => {
    const error = {
      ename: "ZeroDivisionError",
      evalue: "division by zero",
      traceback: ["Traceback…", "ZeroDivisionError: division by zero"],
    };
    const cases: Array<[Partial<CellResult>, RegExp]> = [
      [{ status: "error", error }, /^\[error\] ZeroDivisionError: division by zero$/m],
      [
        { status: "timeout", durationMs: 30_000 },
        /^\[timeout\] the cell ran past its time limit and was interrupted \(after 30\.0 s\)$/m,
      ],
      [{ status: "cancelled" }, /^\[cancelled\] /m],
      [{ status: "killed" }, /^\[killed\] .*state|^\[killed\] .*lost/m],
      [{ status: "died" }, /^\[died\] .*lost/m],
      [{ status: "skipped" }, /^\[skipped\] not run because an earlier cell did not finish ok$/m],
      [
        { truncated: { artifact: "artifact://abc123", totalBytes: 5_000_000, totalLines: 200_000 } },
        /^\[truncated\] output shortened: 5000000 bytes \/ 200000 lines in total; full output: artifact:\/\/abc123$/m,
      ],
      [{ notices: ["kernel restarted"] }, /^\[note\] kernel restarted$/m],
    ];
    const seen = new Set<string>();
    for (const [overrides, pattern] of cases) {
      const text = renderToolCell({ result: cell(overrides), code: "x" });
      expect(text).toMatch(pattern);
      const tag = /^\[(\w+)\]/m.exec(text.split("\n").slice(3).join("\n"))?.[1];
      seen.add(tag ?? "");
    }
    expect(seen.size).toBe(cases.length);
  });

  it("leaves the duration out for skipped cells and says nothing extra for ok cells", () => {
    const skipped = renderToolCell({ result: cell({ status: "skipped" }), code: "x" });
    expect(skipped.split("\n")[0]).toBe("[1/1] (py) — skipped");
    const ok = renderToolCell({ result: cell({ text: "fine\n" }), code: "x" });
    expect(ok).not.toMatch(/^\[(error|timeout|cancelled|killed|died|skipped|truncated)\]/m);
  });

  it("adds the traceback in expanded mode when the output text lacks it", () => {
    const error = {
      ename: "KeyError",
      evalue: "'a'",
      traceback: ['  File "<cell>", line 1', "KeyError: 'a'"],
    };
    const text = renderToolCell(
      { result: cell({ status: "error", error }), code: "d['a']" },
      { expanded: true },
    );
    expect(text).toContain("  File \"<cell>\", line 1\nKeyError: 'a'");
  });

  it("mentions images the cell displayed", () => {
    const outputs: CellResult["outputs"] = [
      { type: "display", data: { "image/png": "A".repeat(4096), "text/plain": "<Figure>" } },
    ];
    expect(renderToolCell({ result: cell({ outputs }), code: "plt.show()" }, {})).toContain(
      "[image image/png 3.0 KiB]",
    );
  });

  it("strips terminal escape codes from output", () => {
    expect(renderToolCell({ result: cell({ text: "\x1b[31mred\x1b[0m\n" }), code: "x" })).toMatch(/\nred$/);
  });

  it("renders a multi-cell call with [i/n] headers separated by blank lines", () => {
    const text = renderToolTranscript([
      { result: cell({ index: 0, text: "a\n" }), code: "print('a')" },
      { result: cell({ index: 1, status: "skipped" }), code: "print('b')" },
    ]);
    expect(text).toContain("[1/2] (py) — ok");
    expect(text).toContain("a\n\n[2/2] (py) — skipped");
  });
});
