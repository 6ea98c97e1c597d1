// The REPL at the keyboard: Tab completes from the kernel (names, keys, modules after import); interrupt words: Ctrl-C shows KeyboardInterrupt at the cell's line, --timeout says [timeout], an
// ignored interrupt that escalates says [killed] (not [died]).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../helpers/build.js";
import { TEST_PYTHON } from "../../helpers/interpreters.js";
import { titleWithSkip } from "../../helpers/libraries.js";
import { killPanes, ReplPane, tmuxSkipReason } from "../../helpers/repl-pane.js";

const noTmux = tmuxSkipReason();

describe.skipIf(noTmux !== undefined)(titleWithSkip("evalkit repl interrupts", noTmux), () => {
  let repl: ReplPane;
  let timed: ReplPane;

  beforeAll(async () => {
    await ensureBuilt();
    repl = new ReplPane(`interrupt-${process.pid}`, ["--python", TEST_PYTHON], { NO_COLOR: "1" });
    timed = new ReplPane(`timeout-${process.pid}`, ["--python", TEST_PYTHON, "--timeout", "2"], {
      NO_COLOR: "1",
    });
  }, 150_000);

  afterAll(() => {
    killPanes();
    repl?.dispose();
    timed?.dispose();
  });

  it("shows KeyboardInterrupt and the line the cell was on after Ctrl-C", async () => {
    await repl.waitFor(/In \[1\]:\s*$/, 30_000);
    repl.type("import time");
    await repl.waitForPrompt();
    repl.type("x = 1; time.sleep(60)");
    await repl.waitFor(/running/);
    repl.send("C-c");
    const shown = await repl.waitFor(/KeyboardInterrupt\n[\s\S]*?In \[\d+\]:\s*$/, 30_000);
    const text = repl.recent();
    expect(text).toMatch(/File "<cell 2>", line 1, in <module>\n\s+x = 1; time\.sleep\(60\)/);
    expect(text).toContain("[cancelled]");
    expect(shown[0]).toBeDefined();
    repl.type("x + 1");
    await repl.waitFor(/Out\[\d+\]: 2/);
  }, 60_000);

  it("says [killed] when the cell ignores the interrupt and the kernel is killed", async () => {
    await repl.waitForPrompt();
    repl.type('exec("while True:\\n try: time.sleep(0.2)\\n except KeyboardInterrupt: pass")');
    await repl.waitFor(/running/);
    repl.send("C-c");
    await repl.waitFor(/\[killed\] the kernel did not stop when interrupted/, 45_000);
    expect(repl.recent()).not.toContain("[died]");
  }, 60_000);

  it("completes names and dict keys with Tab from the live namespace", async () => {
    await timed.waitFor(/In \[\d+\]:\s*$/, 30_000);
    timed.type("settings = {'learning_rate': 0.1}; dataframe_rows = 7");
    // The prompt after this cell, not the one it was typed at (under load the echo can lag, and a Tab sent while
    // the cell still runs is not a completion).
    await timed.waitFor(/dataframe_rows = 7\s*\nIn \[\d+\]:\s*$/);
    timed.send("-l", "dataframe_r");
    timed.send("Tab");
    await timed.waitFor(/dataframe_rows\s*$/);
    timed.send("Enter");
    await timed.waitFor(/Out\[\d+\]: 7/);
    await timed.waitForPrompt();
    timed.send("-l", "settings['lea");
    timed.send("Tab");
    await timed.waitFor(/settings\['learning_rate'\]\s*$/);
    timed.send("Enter");
    await timed.waitFor(/Out\[\d+\]: 0\.1/);
  }, 60_000);

  it("completes module names after import and from, not builtins or variables", async () => {
    await timed.waitForPrompt();
    timed.send("-l", "import xml.e");
    timed.send("Tab");
    await timed.waitFor(/import xml\.etree\s*$/);
    timed.send("-l", ".ElementT");
    timed.send("Tab");
    await timed.waitFor(/import xml\.etree\.ElementTree\s*$/);
    timed.send("Enter");
    await timed.waitForPrompt();
    timed.send("-l", "import o");
    timed.send("Tab");
    timed.send("Tab");
    await timed.waitFor(/\bos\b[\s\S]*\n\S*In \[\d+\]: import o\s*$/);
    const listed = timed.recent();
    expect(listed).toMatch(/\boperator\b/);
    expect(listed).not.toMatch(/\b(object|open|ord|oct)\b/);
    timed.send("C-u");
    timed.send("-l", "from xml.etree import ElementT");
    timed.send("Tab");
    await timed.waitFor(/from xml\.etree import ElementTree\s*$/);
    timed.send("C-u");
  }, 60_000);

  it("completes JavaScript names, properties, keys and paths with Tab after :js", async () => {
    await timed.waitForPrompt();
    timed.type(":js");
    await timed.waitFor(/js \[\d+\]:\s*$/, 30_000);
    timed.send("-l", "JSON.stri"); // before the first JS cell: Tab starts the kernel
    timed.send("Tab");
    await timed.waitFor(/JSON\.stringify\s*$/, 30_000);
    timed.send("C-u");
    timed.type("const settings = { learning_rate: 0.1 }; const dataframe_rows = 7");
    await timed.waitFor(/js \[\d+\]:\s*$/, 30_000);
    timed.send("-l", "dataframe_r");
    timed.send("Tab");
    await timed.waitFor(/dataframe_rows\s*$/);
    timed.send("-l", " + settings['lea");
    timed.send("Tab");
    await timed.waitFor(/settings\['learning_rate'\]\s*$/);
    timed.send("Enter");
    await timed.waitFor(/7\.1\n/);
    await timed.waitFor(/js \[\d+\]:\s*$/);
    timed.send("-l", "require('./package.js");
    timed.send("Tab");
    await timed.waitFor(/require\('\.\/package\.json\s*$/);
    timed.send("C-u");
    timed.type(":py");
    await timed.waitFor(/In \[\d+\]:\s*$/);
  }, 60_000);

  it("prints a [timeout] notice with the KeyboardInterrupt traceback when --timeout passes", async () => {
    await timed.waitForPrompt();
    timed.type("import time; time.sleep(30)");
    await timed.waitFor(/\[timeout\] the cell ran past its time limit/, 30_000);
    expect(timed.recent()).toMatch(/time\.sleep\(30\)\n(.*\n)*KeyboardInterrupt/);
  }, 60_000);
});
