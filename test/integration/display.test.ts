// Rich output through a real runner: the repr dispatch, raw bundles, JSON edge values, status events and display ids.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DisplayOutput, KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import { collectDisplayParts } from "../../src/output/display/display-render.js";
import { toCellOutputs } from "../../src/output/display/display-updates.js";
import { startKernel } from "../helpers/python.js";

const REPRS = `
class Everything:
    def _repr_html_(self): return "<b>html</b>"
    def _repr_markdown_(self): return "**md**"
    def _repr_svg_(self): return "<svg/>"
    def _repr_png_(self): return b"\\x89PNG\\r\\n\\x1a\\n"
    def _repr_jpeg_(self): return (b"\\xff\\xd8\\xff", {"width": 2})
    def _repr_json_(self): return {"a": (1, 2)}
    def _repr_latex_(self): return "$x$"
    def __repr__(self): return "Everything()"
`;

function rich(outputs: KernelOutput[]): DisplayOutput[] {
  return outputs.filter((o): o is DisplayOutput => o.type === "display" || o.type === "result");
}

function stderrOf(outputs: KernelOutput[]): string {
  return outputs.map((o) => (o.type === "stream" && o.name === "stderr" ? o.text : "")).join("");
}

describe("display in a real Python kernel", () => {
  it("fills every MIME type from its _repr_*_ method, for results and display() alike", async () => {
    const kernel = await startKernel();
    await kernel.execute(REPRS);
    const [result] = rich((await kernel.execute("Everything()")).outputs);
    expect(result?.type).toBe("result");
    expect(result?.data).toEqual({
      "text/html": "<b>html</b>",
      "text/markdown": "**md**",
      "image/svg+xml": "<svg/>",
      "image/png": Buffer.from("\x89PNG\r\n\x1a\n", "latin1").toString("base64"),
      "image/jpeg": Buffer.from([0xff, 0xd8, 0xff]).toString("base64"),
      "application/json": { a: [1, 2] },
      "text/latex": "$x$",
      "text/plain": "Everything()",
    });
    expect(result?.metadata).toEqual({ "image/jpeg": { width: 2 } });
    const [shown] = rich((await kernel.execute("display(Everything())")).outputs);
    expect(shown?.type).toBe("display");
    expect(shown?.data).toEqual(result?.data);
  });

  it("honours include and exclude through _repr_mimebundle_ and the individual methods", async () => {
    const kernel = await startKernel();
    await kernel.execute(`
class Bundled:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": "<i>b</i>", "text/markdown": "*b*"}
    def _repr_latex_(self): return "$b$"
`);
    const outputs = (
      await kernel.execute(
        "display(Bundled())\ndisplay(Bundled(), include=['text/markdown'])\ndisplay(Bundled(), exclude=['text/html', 'text/plain'])",
      )
    ).outputs;
    const keys = rich(outputs).map((o) => Object.keys(o.data).sort());
    expect(keys).toEqual([
      ["text/html", "text/latex", "text/markdown", "text/plain"],
      ["text/markdown"],
      ["text/latex", "text/markdown"],
    ]);
  });

  it("skips a raising _repr_html_ with a warning on stderr and the cell still succeeds", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(`
class Broken:
    def _repr_html_(self): raise ValueError("no html")
    def __repr__(self): return "Broken()"
Broken()`);
    expect(outcome.status).toBe("ok");
    expect(rich(outcome.outputs)[0]?.data).toEqual({ "text/plain": "Broken()" });
    expect(stderrOf(outcome.outputs)).toContain("Broken._repr_html_() raised ValueError: no html");
  });

  it("display(raw=True) sends a ready bundle, base64-encoding bytes", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "display({'text/markdown': '# hi', 'image/png': b'\\x89PNG'}, raw=True, metadata={'source': 't'})",
    );
    const [shown] = rich(outcome.outputs);
    expect(shown?.data).toEqual({
      "text/markdown": "# hi",
      "image/png": Buffer.from("\x89PNG", "latin1").toString("base64"),
    });
    expect(shown?.metadata).toEqual({ source: "t" });
  });

  it("keeps NaN and Infinity inside application/json as valid JSON values", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "display(JSON({'nan': float('nan'), 'inf': float('inf'), 'list': [1.5, float('-inf')]}))",
    );
    expect(outcome.status).toBe("ok");
    const value = rich(outcome.outputs)[0]?.data["application/json"];
    // Whatever the protocol maps them to, the value must survive a JSON round trip unchanged.
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
    expect(Object.keys(value as object).sort()).toEqual(["inf", "list", "nan"]);
    expect(collectDisplayParts(outcome.outputs).text).toContain('"nan"');
  });

  it("turns the status MIME into a status output", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      `display({${JSON.stringify(STATUS_MIME)}: {'op': 'find', 'count': 3}}, raw=True)`,
    );
    expect(toCellOutputs(outcome.outputs)).toEqual([{ type: "status", event: { op: "find", count: 3 } }]);
    expect(collectDisplayParts(outcome.outputs).statusEvents).toEqual([{ op: "find", count: 3 }]);
  });

  it("updates a display by id and clears output, and the model text shows the latest state", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(`
h = display(Markdown("0%"), display_id=True)
print("working")
for p in (50, 100):
    h.update(Markdown("%d%%" % p))
update_display(Markdown("**100%**"), display_id=h.display_id)
`);
    const ids = rich(outcome.outputs).map((o) => [o.displayId, o.update ?? false]);
    const id = ids[0]?.[0];
    expect(typeof id).toBe("string");
    expect(ids).toEqual([
      [id, false],
      [id, true],
      [id, true],
      [id, true],
    ]);
    expect(collectDisplayParts(outcome.outputs).text).toBe("**100%**\nworking");

    const cleared = await kernel.execute(
      "import time\nfor i in range(3):\n    clear_output(wait=True)\n    print('step', i)\nprint('kept')\ndisplay('x')\nclear_output()\nprint('after')",
    );
    expect(cleared.outputs.filter((o) => o.type === "clear_output")).toEqual([
      { type: "clear_output", wait: true },
      { type: "clear_output", wait: true },
      { type: "clear_output", wait: true },
      { type: "clear_output", wait: false },
    ]);
    expect(collectDisplayParts(cleared.outputs).text).toBe("after");
  });

  it("gives notebook code that imports IPython's display evalkit's display, which shows rich output", async () => {
    // A stand-in IPython whose display() only prints a repr, as the real one does without an IPython shell.
    const dir = mkdtempSync(join(tmpdir(), "evalkit-ipython-"));
    mkdirSync(join(dir, "IPython"));
    writeFileSync(join(dir, "IPython", "__init__.py"), "");
    writeFileSync(
      join(dir, "IPython", "display.py"),
      "def display(*objs, **kw):\n    print(*[repr(o) for o in objs])\nclear_output = update_display = display\n",
    );
    try {
      const kernel = await startKernel();
      const outcome = await kernel.execute(
        `import sys; sys.path.insert(0, ${JSON.stringify(dir)})\nfrom IPython.display import display\ndisplay(HTML("<b>x</b>"))`,
      );
      expect(outcome.status).toBe("ok");
      expect(rich(outcome.outputs)).toEqual([
        {
          type: "display",
          data: { "text/html": "<b>x</b>", "text/plain": "<IPython.core.display.HTML object>" },
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tells a cell that fails to import IPython that display and its wrappers are built in", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import sys\nsys.modules['IPython'] = None\nfrom IPython.display import HTML",
    );
    expect(outcome.error?.ename).toBe("ModuleNotFoundError");
    expect(outcome.error?.traceback.at(-1)).toMatch(/display.*HTML.*already defined in every cell/);
  });

  it("injects the display helpers into the namespace and keeps pandas, PIL and matplotlib unimported", async () => {
    const kernel = await startKernel();
    const outcome = await kernel.execute(
      "import sys, os\n(callable(display), callable(update_display), callable(clear_output), os.environ.get('MPLBACKEND'), [m for m in ('pandas', 'PIL', 'matplotlib', 'plotly') if m in sys.modules])",
    );
    expect(rich(outcome.outputs)[0]?.data["text/plain"]).toBe("(True, True, True, 'Agg', [])");
  });
});
