// The REPL's pieces without a terminal: arguments, history, completeness, images, prompts, output and spinner.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseReplArgs, REPL_MAX_TIMEOUT_SEC } from "../../../src/cli/repl/args.js";
import { CellPrinter } from "../../../src/cli/repl/cell-output.js";
import { parseReplCommand, renderMore } from "../../../src/cli/repl/commands.js";
import { type Completeness, checkJsComplete } from "../../../src/cli/repl/completeness.js";
import { loadHistory, resolveHistoryPath, saveHistory } from "../../../src/cli/repl/history.js";
import { detectImageProtocol, encodeInlineImage, ImageOutput } from "../../../src/cli/repl/images.js";
import type { ReadLineOptions, ReadResult } from "../../../src/cli/repl/line-input.js";
import { formatPrompts, isReplCommand, readCell } from "../../../src/cli/repl/read-cell.js";
import { selectNotices } from "../../../src/cli/repl/run-cell.js";
import { Spinner, TerminalOutput } from "../../../src/cli/repl/terminal.js";
import { isEvalkitError } from "../../../src/errors.js";
import { createArtifactStore } from "../../../src/output/artifacts/artifact-store.js";

// 1x1 transparent PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-repl-parts-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected an error");
}

describe("parseReplArgs", () => {
  it("reads every flag and splits the launcher like a shell would", () => {
    const args = parseReplArgs([
      "--python",
      "/usr/bin/python3",
      "--cwd",
      "/tmp",
      "--session",
      "proj-1",
      "--launcher",
      'docker exec -i "my box"',
      "--timeout",
      "2.5",
      "--js",
    ]);
    expect(args).toEqual({
      python: "/usr/bin/python3",
      cwd: "/tmp",
      session: "proj-1",
      launcher: ["docker", "exec", "-i", "my box"],
      timeoutSec: 2.5,
      startInJs: true,
      isHelp: false,
    });
  });

  it("rejects unknown flags, bad session names and timeouts that are not numbers as invalid input", () => {
    for (const argv of [["--bogus"], ["--session", "../etc"], ["--timeout", "soon"], ["--timeout", ""]]) {
      const err = captureError(() => parseReplArgs(argv));
      expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
    }
    const err = captureError(() => parseReplArgs(["--session", "a b"]));
    expect(isEvalkitError(err) && err.details.field).toBe("session");
    const timeout = captureError(() => parseReplArgs(["--timeout", "soon"]));
    expect(isEvalkitError(timeout) && timeout.message).toContain('--timeout: expected a number, got "soon"');
  });

  it("clamps --timeout by exec's rule: at least 1 second, at most the longest a timer can wait", () => {
    expect(parseReplArgs(["--timeout", "0"]).timeoutSec).toBe(1);
    expect(parseReplArgs(["--timeout=-5"]).timeoutSec).toBe(1);
    expect(parseReplArgs(["--timeout", "7200"]).timeoutSec).toBe(7200);
    expect(parseReplArgs(["--timeout", "1e12"]).timeoutSec).toBe(REPL_MAX_TIMEOUT_SEC);
    // The ceiling is a window a Node timer can hold: a longer one would fire at once.
    expect(REPL_MAX_TIMEOUT_SEC * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(parseReplArgs([]).timeoutSec).toBeUndefined();
  });
});

describe("selectNotices", () => {
  it("keeps restarts, undo points and how a kernel died, and drops the tool's words for how the cell ended", () => {
    const notices = [
      "kernel restarted: previous kernel exited (exit code 1); state was lost",
      "eval cell timed out after 2s; kernel interrupted but remains running",
      "eval cell cancelled; the kernel did not stop within 5s of the interrupt and was killed; state was lost",
      "kernel died during the cell (signal SIGSEGV); state was lost and the cell was not re-run",
      "memory limit 100 MB is an rlimit only",
    ];
    expect(selectNotices(notices, new Set(["memory limit 100 MB is an rlimit only"]))).toEqual([
      notices[0],
      notices[3],
    ]);
  });
});

describe("history file", () => {
  it("round-trips entries newest first and stores them oldest first, privately", () => {
    const path = resolveHistoryPath(dir);
    expect(path).toBe(join(dir, "history"));
    expect(resolveHistoryPath(dir, "proj")).toBe(join(dir, "history-proj"));
    expect(loadHistory(path)).toEqual([]);
    expect(saveHistory(path, ["third", "second", "first"])).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe("first\nsecond\nthird\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadHistory(path)).toEqual(["third", "second", "first"]);
  });

  it("keeps only the newest entries when over the limit, on save and on load", () => {
    const path = join(dir, "history");
    const newestFirst = Array.from({ length: 1500 }, (_, i) => `cmd ${1499 - i}`);
    saveHistory(path, newestFirst);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(1000);
    expect(lines[lines.length - 1]).toBe("cmd 1499");
    writeFileSync(path, `${Array.from({ length: 20 }, (_, i) => `old ${i}`).join("\n")}\n`);
    expect(loadHistory(path, 5)).toEqual(["old 19", "old 18", "old 17", "old 16", "old 15"]);
  });

  it("reports a history that cannot be written instead of throwing", () => {
    writeFileSync(join(dir, "blocker"), "a file, not a directory");
    expect(saveHistory(join(dir, "blocker", "history"), ["x"])).toEqual(expect.any(String));
  });
});

describe("checkJsComplete", () => {
  it("asks for more lines when the code stops inside a block, call, expression, template or comment", () => {
    for (const code of ["function f(x) {", "foo(1,", "1 +", "let s = `abc", "/* note"])
      expect(checkJsComplete(code).status).toBe("incomplete");
  });

  it("indents the next line after an opening bracket", () => {
    expect(checkJsComplete("if (x) {")).toEqual({ status: "incomplete", indent: "  " });
    expect(checkJsComplete("  foo(")).toEqual({ status: "incomplete", indent: "    " });
  });

  it("runs complete code, including top-level await, and submits broken code so its error is shown", () => {
    expect(checkJsComplete("const a = 1\nawait Promise.resolve(a)").status).toBe("complete");
    expect(checkJsComplete("if (x) {\n  y()\n}").status).toBe("complete");
    expect(checkJsComplete("const a = 1;;)").status).toBe("invalid");
    expect(checkJsComplete('"unterminated').status).toBe("invalid");
  });
});

describe("images", () => {
  it("uses an inline protocol only when the terminal announces one", () => {
    expect(detectImageProtocol({ TERM: "xterm-kitty" }, true)).toBe("kitty");
    expect(detectImageProtocol({ TERM: "xterm-256color", KITTY_WINDOW_ID: "1" }, true)).toBe("kitty");
    expect(detectImageProtocol({ TERM_PROGRAM: "iTerm.app" }, true)).toBe("iterm2");
    expect(detectImageProtocol({ TERM_PROGRAM: "WezTerm" }, true)).toBe("iterm2");
    expect(detectImageProtocol({ TERM: "xterm-256color" }, true)).toBeUndefined();
    expect(detectImageProtocol({ TERM: "xterm-kitty" }, false)).toBeUndefined();
    expect(
      detectImageProtocol({ TERM: "xterm-kitty", TMUX: "/tmp/tmux-0/default,1,0" }, true),
    ).toBeUndefined();
  });

  it("sends kitty images in 4096-character chunks with only the first carrying the format", () => {
    const data = "A".repeat(5000);
    const text = encodeInlineImage("kitty", "image/png", data) ?? "";
    expect(text.startsWith(`\x1b_Ga=T,f=100,m=1;${"A".repeat(4096)}\x1b\\`)).toBe(true);
    expect(text).toContain(`\x1b_Gm=0;${"A".repeat(904)}\x1b\\`);
    expect(encodeInlineImage("kitty", "image/jpeg", data)).toBeUndefined();
  });

  it("gives iTerm2 the decoded size", () => {
    const text = encodeInlineImage("iterm2", "image/png", PNG_BASE64) ?? "";
    const bytes = Buffer.from(PNG_BASE64, "base64").length;
    expect(text).toBe(`\x1b]1337;File=inline=1;size=${bytes};preserveAspectRatio=1:${PNG_BASE64}\x07\n`);
  });

  it("saves images to numbered files when nothing can draw them", () => {
    const images = new ImageOutput({ protocol: undefined, dir: join(dir, "images") });
    const first = images.show("image/png", PNG_BASE64);
    const second = images.show("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>");
    if (first.kind !== "file" || second.kind !== "file") throw new Error("expected files");
    expect(first.path).toMatch(/-1\.png$/);
    expect(readFileSync(first.path).subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(second.path).toMatch(/-2\.svg$/);
    expect(readFileSync(second.path, "utf8")).toContain("<svg");
    // SVG is never drawn inline, even on a kitty terminal.
    const kitty = new ImageOutput({ protocol: "kitty", dir: join(dir, "images") });
    expect(kitty.show("image/svg+xml", "<svg/>").kind).toBe("file");
    expect(kitty.show("image/png", PNG_BASE64).kind).toBe("inline");
  });

  it("reports an image it cannot save instead of throwing", () => {
    writeFileSync(join(dir, "in-the-way"), "x");
    const images = new ImageOutput({ protocol: undefined, dir: join(dir, "in-the-way", "images") });
    const shown = images.show("image/png", PNG_BASE64);
    expect(shown).toMatchObject({ kind: "failed", mime: "image/png" });
    if (shown.kind === "failed") expect(shown.reason).toMatch(/ENOTDIR.*images go to/);
  });
});

describe("commands and prompts", () => {
  it("recognises REPL commands and leaves code alone", () => {
    expect(isReplCommand(":js")).toBe(true);
    expect(isReplCommand("%more")).toBe(true);
    expect(isReplCommand("exit")).toBe(true);
    expect(isReplCommand("%time x")).toBe(false);
    expect(isReplCommand("exit_code = 1")).toBe(false);
    expect(parseReplCommand(":js")).toEqual({ kind: "switch", language: "js" });
    expect(parseReplCommand(":py 1 + 1")).toEqual({ kind: "switch", language: "py", code: "1 + 1" });
    expect(parseReplCommand(":q")).toEqual({ kind: "quit" });
    expect(parseReplCommand("quit()")).toEqual({ kind: "quit" });
    expect(parseReplCommand(":nope")).toEqual({ kind: "unknown", name: "nope" });
  });

  it("parses the time-travel commands and asks for the name a checkpoint needs", () => {
    expect(parseReplCommand(":checkpoint  loaded ")).toEqual({ kind: "checkpoint", name: "loaded" });
    expect(parseReplCommand(":restore loaded")).toEqual({ kind: "restore", name: "loaded" });
    expect(parseReplCommand(":undo")).toEqual({ kind: "undo" });
    expect(parseReplCommand(":checkpoints")).toEqual({ kind: "checkpoints" });
    expect(parseReplCommand(":restore")).toEqual({ kind: "unknown", name: "restore needs a NAME" });
  });

  it("takes clear, %clear, %cls and :clear as clearing the screen, but leaves cls and clear() to the kernel", () => {
    for (const line of ["clear", " %clear ", "%cls", ":clear"]) {
      expect(isReplCommand(line), line).toBe(true);
      expect(parseReplCommand(line), line).toEqual({ kind: "clear" });
    }
    for (const line of ["cls", "clear()", "clear = 1", "print(clear)"])
      expect(isReplCommand(line), line).toBe(false);
  });

  it("aligns the continuation prompt with the first one and colours only when asked", () => {
    const plain = formatPrompts("py", 12, false);
    expect(plain).toEqual({ first: "In [12]: ", continuation: "    ...: " });
    expect(formatPrompts("js", 3, false).first).toBe("js [3]: ");
    expect(formatPrompts("py", 1, true).first).toContain("\x1b[");
  });
});

/** Replays scripted reads and records the prompts and prefills readCell asked for. */
function scriptedInput(script: ReadResult[]) {
  const asked: { prompt: string; options: ReadLineOptions }[] = [];
  return {
    asked,
    readLine(prompt: string, options: ReadLineOptions = {}): Promise<ReadResult> {
      asked.push({ prompt, options });
      return Promise.resolve(script.shift() ?? { kind: "eof" });
    },
  };
}

const line = (text: string): ReadResult => ({ kind: "line", text });

describe("readCell", () => {
  const prompts = { first: "In [1]: ", continuation: "   ...: " };
  const pythonLike = async (code: string): Promise<Completeness> =>
    code.endsWith(":") || (code.includes("\n") && !code.endsWith("\n"))
      ? { status: "incomplete", indent: "    " }
      : { status: "complete", indent: "" };

  it("keeps reading while the kernel says incomplete, prefilling its indent, until an empty line", async () => {
    const input = scriptedInput([line("def f(x):"), line("    return x"), line("    ")]);
    const read = await readCell(input, prompts, pythonLike);
    expect(read).toEqual({ kind: "code", code: "def f(x):\n    return x" });
    expect(input.asked.map((a) => a.prompt)).toEqual(["In [1]: ", "   ...: ", "   ...: "]);
    expect(input.asked[1]?.options.prefill).toBe("    ");
  });

  it("returns REPL commands at once and skips empty first lines", async () => {
    const input = scriptedInput([line(""), line("  :help  ")]);
    expect(await readCell(input, prompts, pythonLike)).toEqual({ kind: "code", code: ":help" });
  });

  it("passes Ctrl-C and the end of input through, dropping what was typed", async () => {
    expect(
      await readCell(scriptedInput([line("if x:"), { kind: "interrupt" }]), prompts, pythonLike),
    ).toEqual({
      kind: "interrupt",
    });
    expect(await readCell(scriptedInput([{ kind: "eof" }]), prompts, pythonLike)).toEqual({ kind: "eof" });
  });

  it("reads a %% cell magic up to the first empty line", async () => {
    const complete = async (): Promise<Completeness> => ({ status: "complete", indent: "" });
    const input = scriptedInput([line("%%time"), line("x = 1"), line("y = 2"), line("")]);
    expect(await readCell(input, prompts, complete)).toEqual({ kind: "code", code: "%%time\nx = 1\ny = 2" });
  });
});

/** A fake terminal that records everything written. */
function fakeTerminal(isTTY = false) {
  const stream = {
    written: "",
    isTTY,
    write(text: string) {
      stream.written += text;
      return true;
    },
  };
  return { stream, terminal: new TerminalOutput(stream) };
}

function createPrinter(isTTY = false) {
  const { stream, terminal } = fakeTerminal(isTTY);
  const render = { color: false };
  const printer = new CellPrinter({
    terminal,
    render,
    images: new ImageOutput({ protocol: undefined, dir: join(dir, "images") }),
    spinner: new Spinner(terminal, render),
    artifacts: createArtifactStore({ dir: join(dir, "artifacts") }),
    executionCount: 7,
  });
  return { stream, printer };
}

describe("CellPrinter", () => {
  it("shows 20 lines live, holds the rest back with a %more notice, and keeps them for %more", () => {
    const { stream, printer } = createPrinter();
    for (let i = 0; i < 30; i++) printer.handle({ type: "stream", name: "stdout", text: `row ${i}\n` });
    expect(stream.written).toContain("row 19\n");
    expect(stream.written).not.toContain("row 20");
    const last = printer.finish({ status: "ok", durationMs: 5 });
    expect(stream.written).toContain("… 10 more lines hidden; type %more to see them\n");
    expect(last.hiddenLines).toBe(10);
    const more = renderMore(last, { color: false });
    expect(more).toContain("row 0\n");
    expect(more).toContain("row 29\n");
  });

  it("prints results as Out[n], images as saved files, and the traceback when the cell fails", () => {
    const { stream, printer } = createPrinter();
    printer.handle({ type: "stream", name: "stdout", text: "partial" });
    printer.handle({ type: "result", data: { "text/plain": "42" } });
    printer.handle({
      type: "display",
      data: { "image/png": PNG_BASE64, "text/plain": "<Figure size 640x480 with 1 Axes>" },
    });
    const error = {
      ename: "ValueError",
      evalue: "bad",
      traceback: ["Traceback (most recent call last):", "ValueError: bad"],
    };
    printer.handle({ type: "error", ...error });
    printer.finish({ status: "error", durationMs: 5, error });
    expect(stream.written).toMatch(/^partial\nOut\[7\]: 42\n\[image\] image\/png saved to \S+-\d+\.png\n/);
    expect(stream.written).not.toContain("<Figure");
    expect(stream.written).toContain("ValueError: bad\n");
  });

  it("names cancellation, timeouts and a killed kernel distinctly", () => {
    const texts = (["cancelled", "timeout", "killed", "died"] as const).map((status) => {
      const { stream, printer } = createPrinter();
      printer.finish({ status, durationMs: 2000 });
      return stream.written;
    });
    expect(texts[0]).toContain("[cancelled]");
    expect(texts[1]).toContain("[timeout]");
    expect(texts[2]).toContain("[killed]");
    expect(texts[3]).toContain("[died]");
  });

  it("clamps a very long line and points to the artifact that holds it", () => {
    const { stream, printer } = createPrinter();
    printer.handle({ type: "stream", name: "stdout", text: `${"x".repeat(5000)}\n` });
    const last = printer.finish({ status: "ok", durationMs: 1 });
    expect(stream.written).toContain("…[+1000 chars]");
    expect(last.truncated?.artifact).toMatch(/^artifact:\/\//);
    expect(stream.written).toContain(`[truncated] output shortened`);
    expect(stream.written).toContain(last.truncated?.artifact ?? "?");
    expect(renderMore(last, { color: false })).toContain("evalkit artifact ");
  });
});

describe("renderMore", () => {
  it("says so when there is nothing more to show", () => {
    expect(renderMore(undefined, { color: false })).toContain("no cell has run yet");
    expect(renderMore({ text: "a\n", hiddenLines: 0 }, { color: false })).toContain("already shown in full");
  });
});

describe("Spinner", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("appears after a second on a TTY and is erased before other output", () => {
    const { stream, terminal } = fakeTerminal(true);
    const spinner = new Spinner(terminal, { color: false });
    spinner.start(Date.now());
    vi.advanceTimersByTime(900);
    expect(stream.written).toBe("");
    vi.advanceTimersByTime(300);
    expect(stream.written).toMatch(/running 1\.\d s$/);
    terminal.write("output\n");
    expect(stream.written).toMatch(/running 1\.\d s\r\x1b\[2Koutput\n$/);
    spinner.stop();
  });

  it("never draws without a TTY or over a partial line", () => {
    const piped = fakeTerminal(false);
    new Spinner(piped.terminal, { color: false }).start(Date.now());
    vi.advanceTimersByTime(3000);
    expect(piped.stream.written).toBe("");
    const tty = fakeTerminal(true);
    const spinner = new Spinner(tty.terminal, { color: false });
    tty.terminal.write("50%");
    spinner.start(Date.now());
    vi.advanceTimersByTime(3000);
    expect(tty.stream.written).toBe("50%");
    spinner.stop();
  });
});
