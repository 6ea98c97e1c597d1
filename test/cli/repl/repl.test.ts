// End-to-end: the real `evalkit repl` in a pseudo-terminal (tmux), driven with send-keys and read with capture-pane.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ensureBuilt } from "../../helpers/build.js";
import { DEBIAN_PYTHON, TEST_PYTHON as PYTHON } from "../../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../../helpers/libraries.js";
import { EXIT_MARK, killPanes, ReplPane, tmuxSkipReason } from "../../helpers/repl-pane.js";

function isProcessAlive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    // A zombie still has /proc/<pid>; it is gone for every practical purpose.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

const plotSkip = librarySkipReason(DEBIAN_PYTHON, ["matplotlib"]);
const pandasSkip = librarySkipReason(DEBIAN_PYTHON, ["pandas"]);

const noTmux = tmuxSkipReason();

describe.skipIf(noTmux !== undefined)(titleWithSkip("evalkit repl in a terminal", noTmux), () => {
  let repl: ReplPane;
  let plots: ReplPane;

  beforeAll(async () => {
    await ensureBuilt();
    repl = new ReplPane(`main-${process.pid}`, ["--python", PYTHON]);
    if (plotSkip === undefined || pandasSkip === undefined) {
      plots = new ReplPane(`plots-${process.pid}`, ["--python", DEBIAN_PYTHON], { NO_COLOR: "1" });
    }
  }, 120_000);

  afterAll(() => {
    killPanes();
    repl?.dispose();
    plots?.dispose();
  });

  it("starts with a banner naming the interpreter and shows the first prompt", async () => {
    await repl.waitFor(/evalkit repl · Python \d+\.\d+/);
    await repl.waitFor(/In \[1\]:\s*$/);
    // A terminal gets colour: the prompt is green.
    expect(repl.screenWithColors()).toMatch(/\x1b\[32m(\x1b\[\d+m)*In \[/);
  });

  it("reads a multi-line function definition with auto-indent and calls it", async () => {
    repl.type("def double(x):");
    await repl.waitFor(/\.\.\.: {5}$/); // continuation prompt, body indented for us
    repl.type("return x * 2"); // typed after the auto-indent
    await repl.waitFor(/\.\.\.: {5}$/);
    repl.send("Enter"); // an empty (indent-only) line closes the block
    await repl.waitForPrompt();
    repl.type("double(21)");
    await repl.waitFor(/Out\[\d+\]: 42\n/);
  });

  it("passes !shell commands to the kernel", async () => {
    repl.type("!echo hi-from-shell");
    await repl.waitFor(/^hi-from-shell$/m);
    await repl.waitForPrompt();
  });

  it("interrupts a long loop with Ctrl-C and keeps the kernel's state", async () => {
    repl.type("kept = 41");
    await repl.waitForPrompt();
    repl.type("while True: pass");
    await repl.waitFor(/running \d+\.\d s/); // the spinner: the cell is running
    repl.send("C-c");
    await repl.waitFor(/\[cancelled\] the cell was interrupted/);
    await repl.waitForPrompt();
    repl.type("kept + 1");
    await repl.waitFor(/Out\[\d+\]: 42\n/);
  });

  it("answers input() from the terminal", async () => {
    repl.type('answer = input("Your name? ")');
    await repl.waitFor(/Your name\? $/);
    repl.type("Ada");
    await repl.waitForPrompt();
    repl.type("answer.upper()");
    await repl.waitFor(/Out\[\d+\]: 'ADA'\n/);
  });

  it("hides what is typed for getpass()", async () => {
    repl.type('import getpass; pin = getpass.getpass("PIN: ")');
    await repl.waitFor(/PIN: $/);
    repl.type("s3cret-pin");
    await repl.waitForPrompt();
    repl.type("len(pin)");
    await repl.waitFor(/Out\[\d+\]: 10\n/);
    expect(repl.lines().join("\n")).not.toContain("s3cret-pin");
  });

  it("clears a half-typed line on Ctrl-C at the prompt without running it", async () => {
    const prompt = await repl.waitForPrompt();
    repl.send("-l", "undefined_name_typed_by_mistake");
    await repl.waitFor(/undefined_name_typed_by_mistake$/);
    repl.send("C-c");
    await repl.waitFor(/\^C\n(In \[\d+\]:) $/);
    repl.type("1 + 1");
    await repl.waitFor(/Out\[\d+\]: 2\n/);
    expect(repl.recent()).not.toContain("NameError");
    expect(prompt[0]).toMatch(/In \[\d+\]/);
  });

  it("collapses 100 lines of output to 20 with a notice, and %more shows the rest", async () => {
    repl.type("for i in range(100): print(f'line-{i}')");
    const shown = await repl.waitFor(/80 more lines hidden; type %more to see them/);
    const text = repl.recent();
    expect(text).toContain("line-19");
    expect(text).not.toContain("line-20");
    expect(shown[0]).toBeDefined();
    await repl.waitForPrompt();
    repl.type("%more");
    await repl.waitFor(/^line-99$/m);
    const more = repl.recent();
    expect(more).toContain("line-20");
    expect(more).toContain("line-0");
  });

  it.skipIf(plotSkip !== undefined)(
    titleWithSkip("saves a matplotlib plot to a PNG file and prints its path", plotSkip),
    async () => {
      await plots.waitFor(/In \[1\]:\s*$/, 20_000);
      plots.type("import matplotlib.pyplot as plt; plt.plot([1, 3, 2]); plt.show()");
      const match = await plots.waitFor(/\[image\] image\/png saved to (\S+\.png)/, 30_000);
      const path = match[1] ?? "";
      expect(path.startsWith(join(plots.home, "images"))).toBe(true);
      expect(existsSync(path)).toBe(true);
      const bytes = readFileSync(path);
      expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(bytes.length).toBeGreaterThan(1000);
      // NO_COLOR=1 turns colour off even on a terminal.
      expect(plots.screenWithColors()).not.toMatch(/\x1b\[3\dm/);
    },
  );

  it.skipIf(pandasSkip !== undefined)(
    titleWithSkip("prints a DataFrame and a Series as IPython does: aligned text, not markdown", pandasSkip),
    async () => {
      await plots.waitFor(/In \[\d+\]:\s*$/, 20_000);
      plots.type("import pandas as pd; df = pd.DataFrame({'name': ['a', 'bbbbbb'], 'value': [1.5, 22.25]})");
      await plots.waitForPrompt();
      plots.type("df");
      await plots.waitFor(/Out\[\d+\]:\n {5}name {2}value\n0 {7}a {3}1\.50\n1 {2}bbbbbb {2}22\.25\n/, 20_000);
      await plots.waitForPrompt();
      plots.type("df.value");
      await plots.waitFor(/Out\[\d+\]:\n0 {5}1\.50\n1 {4}22\.25\nName: value, dtype: float64\n/);
      expect(plots.recent()).not.toContain("|");
    },
  );

  it("clears the screen when clear is typed, and on Ctrl-L", async () => {
    await repl.waitForPrompt();
    repl.type("print('before-' + 'clear')");
    await repl.waitFor(/^before-clear$/m);
    await repl.waitForPrompt();
    repl.type("clear");
    // The prompt comes back on the first line of an empty screen; no %clear notice.
    const cleared = await repl.waitForScreen((screen) => /^In \[\d+\]:$/.test(screen));
    expect(cleared).not.toContain("%clear");
    repl.type("print('before-' + 'ctrl-l')");
    await repl.waitForScreen((screen) => screen.includes("before-ctrl-l\nIn ["));
    repl.send("-l", "1 + ");
    repl.send("C-l");
    // Ctrl-L keeps what is typed on the redrawn prompt line.
    await repl.waitForScreen((screen) => /^In \[\d+\]: 1 \+$/.test(screen));
    repl.send("-l", "1");
    repl.send("Enter");
    await repl.waitFor(/Out\[\d+\]: 2\n/);
  });

  it("exits on Ctrl-D, leaves no Python process behind and keeps the history", async () => {
    repl.type("import os; os.getpid()");
    const match = await repl.waitFor(/Out\[\d+\]: (\d+)\n/);
    const pid = Number(match[1]);
    expect(isProcessAlive(pid)).toBe(true);
    await repl.waitForPrompt();
    repl.send("C-d");
    await repl.waitFor(new RegExp(`${EXIT_MARK}0`));
    expect(isProcessAlive(pid)).toBe(false);
    const history = readFileSync(join(repl.home, "history"), "utf8");
    expect(history).toContain("def double(x):\n");
    expect(history).toContain("kept + 1\n");
    expect(history).not.toContain("Ada"); // answers to input() are not history
  });
});

describe.skipIf(noTmux !== undefined)(titleWithSkip("evalkit repl --checkpoints", noTmux), () => {
  let pane: ReplPane;

  beforeAll(async () => {
    await ensureBuilt();
    pane = new ReplPane(`ckpt-${process.pid}`, ["--python", PYTHON, "--checkpoints"], { NO_COLOR: "1" });
  }, 120_000);

  afterAll(() => {
    killPanes();
    pane?.dispose();
  });

  it("takes a checkpoint, restores it, undoes a cell and lists the checkpoints with their memory", async () => {
    await pane.waitFor(/In \[1\]:\s*$/);
    pane.type("items = [1, 2]");
    await pane.waitForPrompt();
    pane.type(":checkpoint two");
    await pane.waitFor(/\[checkpoints\] took "two"/);
    pane.type("items.append(3)");
    await pane.waitForPrompt();
    pane.type(":undo");
    await pane.waitFor(/\[checkpoints\] restored "undo-\d+"/);
    pane.type("print('after undo', items)");
    await pane.waitFor(/after undo \[1, 2\]/);
    pane.type("items.clear()");
    await pane.waitForPrompt();
    pane.type(":restore two");
    await pane.waitFor(/\[checkpoints\] restored "two"/);
    pane.type("print('restored', items)");
    await pane.waitFor(/restored \[1, 2\]/);
    pane.type(":checkpoints");
    await pane.waitFor(/\[checkpoints\] .*"two" [\d.]+ (kB|MB).*; root [\d.]+ MB/);
  }, 60_000);
});
