import { describe, expect, it } from "vitest";
import { createPalette, shouldUseColor } from "../../src/render/color.js";
import {
  collapseForTerminal,
  formatSpinner,
  LivePreview,
  renderCellEnd,
  renderExpandedOutput,
  renderImageSaved,
  renderTraceback,
} from "../../src/render/interactive-render.js";

const plain = { color: false } as const;
const colored = { color: true } as const;
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("shouldUseColor", () => {
  it("uses colour on a TTY unless NO_COLOR is set or TERM is dumb", () => {
    expect(shouldUseColor({ isTTY: true }, {})).toBe(true);
    expect(shouldUseColor({ isTTY: false }, {})).toBe(false);
    expect(shouldUseColor({}, {})).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });

  it("lets FORCE_COLOR override the terminal check", () => {
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { FORCE_COLOR: "0" })).toBe(false);
  });
});

describe("palette", () => {
  it("emits ANSI only when colour is on", () => {
    expect(createPalette(colored).red("x")).toBe("\x1b[31mx\x1b[0m");
    expect(createPalette(plain).red("x")).toBe("x");
  });
});

describe("LivePreview", () => {
  it("streams the first 20 lines live, then holds the rest back with a %more notice", () => {
    const preview = new LivePreview(plain);
    const text = numbered(100);
    let out = "";
    for (let i = 0; i < text.length; i += 37)
      out += preview.push({ name: "stdout", text: text.slice(i, i + 37) });
    expect(out).toBe(numbered(20));
    expect(preview.finish()).toBe("… 80 more lines hidden; type %more to see them\n");
    expect(preview.hiddenLines).toBe(80);
    expect(preview.isCollapsed).toBe(true);
  });

  it("writes nothing extra for short output", () => {
    const preview = new LivePreview(plain);
    expect(preview.push({ name: "stdout", text: "hi\n" })).toBe("hi\n");
    expect(preview.finish()).toBe("");
  });

  it("ends an unterminated last line before the prompt comes back", () => {
    const preview = new LivePreview(plain);
    expect(preview.push({ name: "stdout", text: "no newline" })).toBe("no newline");
    expect(preview.finish()).toBe("\n");
  });

  it("clamps a line to 4000 characters even when it arrives in many chunks", () => {
    const preview = new LivePreview(plain);
    let out = "";
    for (let i = 0; i < 10; i++) out += preview.push({ name: "stdout", text: "x".repeat(1000) });
    out += preview.push({ name: "stdout", text: "\nnext\n" });
    expect(out).toBe(`${"x".repeat(4000)}…[+6000 chars]\nnext\n`);
  });

  it("lets progress bars rewrite their line without counting towards the clamp", () => {
    const preview = new LivePreview({ color: false, maxLineChars: 10 });
    const out = preview.push({ name: "stdout", text: "\r 10% done\r 20% done\r100% done\n" });
    expect(out).toBe("\r 10% done\r 20% done\r100% done\n");
  });

  it("colours stderr red when colour is on and strips program colours when it is off", () => {
    expect(new LivePreview(colored).push({ name: "stderr", text: "warn\n" })).toBe("\x1b[31mwarn\n\x1b[0m");
    const preview = new LivePreview(plain);
    expect(
      preview.push({ name: "stdout", text: "\x1b[32mok\x1b" }) +
        preview.push({ name: "stdout", text: "[0m\n" }),
    ).toBe("ok\n");
  });
});

describe("collapse and expand", () => {
  it("collapses a 100-line text to 20 lines with a notice, and %more shows all of it", () => {
    const collapsed = collapseForTerminal(numbered(100), plain);
    expect(collapsed.hiddenLines).toBe(80);
    expect(collapsed.text.split("\n").slice(0, 20).join("\n")).toBe(numbered(20).trimEnd());
    expect(collapsed.text).toContain("80 more lines hidden; type %more");
    expect(renderExpandedOutput(numbered(100), plain)).toBe(numbered(100));
  });

  it("clamps lines in the expanded view too", () => {
    expect(renderExpandedOutput(`${"y".repeat(5000)}\n`, plain)).toBe(`${"y".repeat(4000)}…[+1000 chars]\n`);
  });
});

describe("cell end notices", () => {
  const error = {
    ename: "ZeroDivisionError",
    evalue: "division by zero",
    traceback: [
      "Traceback (most recent call last):",
      '  File "<cell 3>", line 1, in <module>',
      "ZeroDivisionError: division by zero",
    ],
  };

  it("prints a traceback with the error line in bold red and file/line highlighted", () => {
    const out = renderTraceback(error, colored);
    expect(out).toContain("\x1b[1;31mZeroDivisionError: division by zero\x1b[0m");
    expect(out).toContain('"\x1b[36m<cell 3>\x1b[0m", line \x1b[32m1\x1b[0m');
    expect(renderTraceback(error, plain)).toBe(`${error.traceback.join("\n")}\n`);
  });

  it("has a distinct notice for cancellation, timeout, kill, death and truncation", () => {
    const base = { durationMs: 2000 };
    const outputs = [
      renderCellEnd({ ...base, status: "cancelled" }, plain),
      renderCellEnd({ ...base, status: "timeout" }, plain),
      renderCellEnd({ ...base, status: "killed" }, plain),
      renderCellEnd({ ...base, status: "died" }, plain),
      renderCellEnd(
        { ...base, status: "ok", truncated: { artifact: "artifact://Xy_9", totalBytes: 10, totalLines: 2 } },
        plain,
      ),
    ];
    expect(outputs[0]).toMatch(/^\[cancelled\]/);
    expect(outputs[1]).toMatch(/^\[timeout\] .*after 2\.0 s/);
    expect(outputs[2]).toMatch(/^\[killed\]/);
    expect(outputs[3]).toMatch(/^\[died\]/);
    expect(outputs[4]).toMatch(/^\[truncated\] .*artifact:\/\/Xy_9/);
    expect(new Set(outputs).size).toBe(outputs.length);
    expect(renderCellEnd({ ...base, status: "ok" }, plain)).toBe("");
  });

  it("shows an error as its traceback rather than a second error line", () => {
    const out = renderCellEnd({ status: "error", durationMs: 5, error }, plain);
    expect(out).toBe(`${error.traceback.join("\n")}\n`);
  });

  it("colours notices only when asked", () => {
    expect(renderCellEnd({ status: "timeout", durationMs: 1 }, colored)).toMatch(/^\x1b\[33m\[timeout\]/);
    expect(renderCellEnd({ status: "timeout", durationMs: 1 }, plain)).not.toContain("\x1b");
  });
});

describe("small pieces", () => {
  it("formats a spinner frame with elapsed time", () => {
    expect(formatSpinner(0, 3200, plain)).toBe("⠋ running 3.2 s");
    expect(formatSpinner(11, 500, plain)).toBe("⠙ running 500 ms");
  });

  it("says where an image was saved", () => {
    expect(renderImageSaved("/tmp/plot.png", "image/png", plain)).toBe(
      "[image] image/png saved to /tmp/plot.png",
    );
  });
});
