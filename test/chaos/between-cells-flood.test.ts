// A session whose background work floods output between cells: what waits for the next cell is capped (host and
// kernel memory bounded), the next cell says how much was dropped, and the session keeps working.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/processes.js";
import { cleanupTools, makeTempDir, makeTool } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

describe("chaos: output between cells", () => {
  it("caps what a Python background thread and child print between cells, and says how much was dropped", async () => {
    const tool = makeTool();
    const marker = join(makeTempDir("flood"), "done");
    const start = await tool.execute({
      cells: [
        {
          code: [
            "import subprocess, threading",
            // 5 MB from a child writing to the inherited fd 1, then 4.5 MB from a thread, both after the cell ended.
            "child = subprocess.Popen(['sh', '-c', 'sleep 0.3; head -c 5000000 /dev/zero | tr \"\\\\0\" c; echo'])",
            "def flood():",
            "    child.wait()",
            "    for i in range(50_000):",
            "        print('thread line %06d' % i + 'x' * 80)",
            `    open(${JSON.stringify(marker)}, 'w').close()`,
            "threading.Thread(target=flood).start()",
            "print('started')",
          ].join("\n"),
        },
      ],
    });
    expect(start.details.cells[0]!.status).toBe("ok");
    expect(start.details.cells[0]!.text).toBe("started\n");
    expect(await waitFor(() => existsSync(marker), 60_000)).toBe(true);
    const next = await tool.execute({ cells: [{ code: "print('the next cell')\nchild.returncode" }] });
    const cell = next.details.cells[0]!;
    expect(cell.status).toBe("ok");
    const text = cell.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
    expect(text).toMatch(
      /^evalkit: [\d,]+ characters of output written between cells were dropped; the last 1,048,576 are kept below\n/,
    );
    const dropped = Number(/^evalkit: ([\d,]+)/.exec(text)![1]!.replaceAll(",", ""));
    expect(dropped).toBeGreaterThan(8_000_000);
    // The newest output was kept, then the cell's own; nothing past the cap reached the host.
    expect(text.length).toBeLessThan(1_100_000);
    expect(text).toContain("thread line 049999");
    expect(cell.text).toMatch(/\nthe next cell\n0\n?$/);
    // The notice is said once: the cell after has nothing left over.
    const after = await tool.execute({ cells: [{ code: "print('quiet')" }] });
    expect(after.details.cells[0]!.text).toBe("quiet\n");
  }, 120_000);

  it("caps what JS timers print and display between cells, and says how much was dropped", async () => {
    const tool = makeTool();
    const marker = join(makeTempDir("flood"), "done");
    const start = await tool.execute({
      cells: [
        {
          language: "js",
          code: [
            "const fs = require('node:fs')",
            "let ticks = 0",
            "const timer = setInterval(() => {",
            "  ticks++",
            "  if (ticks % 2) console.log('tick ' + ticks + ' ' + 'y'.repeat(10_000))",
            "  else display({ 'text/plain': 'big display ' + ticks, 'text/html': '<p>' + 'z'.repeat(1_000_000) + '</p>' })",
            "  if (ticks === 200) {",
            "    clearInterval(timer)",
            `    fs.writeFileSync(${JSON.stringify(marker)}, '')`,
            "  }",
            "}, 1)",
            "'started'",
          ].join("\n"),
        },
      ],
    });
    expect(start.details.cells[0]!.status).toBe("ok");
    expect(await waitFor(() => existsSync(marker), 30_000)).toBe(true);
    const next = await tool.execute({ cells: [{ language: "js", code: "ticks" }] });
    const cell = next.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.text).toMatch(/\n200\n?$/);
    const first = cell.outputs[0];
    expect(first?.type === "stream" ? first.text : "").toMatch(
      /^evalkit: [\d,]+ characters of output produced between cells were dropped; the first 262,144 are kept below\n/,
    );
    const kept = cell.outputs.filter((o) => o.type === "display").length;
    expect(kept).toBeLessThanOrEqual(1);
  }, 60_000);
});
