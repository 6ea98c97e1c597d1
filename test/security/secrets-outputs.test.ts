// A secret a cell prints into any textual MIME type (SVG, HTML, JSON, +json, +xml, JavaScript) or into display
// metadata is redacted everywhere it lands: details, the model's content, `exec --json`, the `.svg` file text mode
// saves, the notebook `--output-notebook` writes, and MCP's structuredContent.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvalTool } from "../../src/tool/eval-tool.js";
import { buildCli, callEval, closeServers, ROOT, startServer, TEST_PYTHON } from "../mcp/mcp-helpers.js";

const SECRET_NAME = "REPORTING_DB_PASSWORD";
const SECRET = "pw-Zx81-secret-in-svg-Qq";
const work = mkdtempSync(path.join(tmpdir(), "evalkit-secret-outputs-"));
const source = path.join(work, "secret.txt");
const withSecret = { ...process.env, [SECRET_NAME]: SECRET, EVALKIT_HOME: work };

/** The cell reads the value from a file (the kernel's environment never has it) and shows it in every textual form. */
const SHOW_EVERYWHERE = `s = open(${JSON.stringify(source)}).read()
display({"image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg"><text>' + s + '</text></svg>'}, raw=True)
display({"text/html": "<b>" + s + "</b>", "text/plain": "plain", "application/json": {"k": s},
         "application/vnd.example+json": {"nested": [s]}, "application/rss+xml": "<x>" + s + "</x>",
         "application/javascript": "console.log('" + s + "')"}, metadata={"note": s, s: 1}, raw=True)`;

beforeAll(async () => {
  writeFileSync(source, SECRET);
  await buildCli();
}, 180_000);
afterEach(async () => {
  await closeServers();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runCli(args: string[]) {
  return spawnSync(
    process.execPath,
    [path.join(ROOT, "bin", "evalkit.js"), "exec", "--python", TEST_PYTHON, ...args],
    {
      cwd: work,
      encoding: "utf8",
      timeout: 60_000,
      env: withSecret,
    },
  );
}

describe("secrets in rich outputs", () => {
  it("redacts SVG, every textual MIME type and metadata in the library's details and content", async () => {
    process.env[SECRET_NAME] = SECRET;
    const tool = createEvalTool({ python: TEST_PYTHON, cwd: work, js: false });
    try {
      const result = await tool.execute({ cells: [{ code: SHOW_EVERYWHERE }] });
      expect(result.details.cells[0]?.status).toBe("ok");
      const everything = JSON.stringify(result);
      expect(everything).not.toContain(SECRET);
      expect(everything).toContain(`[REDACTED:${SECRET_NAME}]`);
    } finally {
      delete process.env[SECRET_NAME];
      await tool.dispose();
    }
  }, 60_000);

  it("redacts them in `evalkit exec --json` and in the .svg file text mode saves", () => {
    const json = runCli(["--json", "-c", SHOW_EVERYWHERE]);
    expect(json.status).toBe(0);
    expect(json.stdout).not.toContain(SECRET);
    const images = path.join(work, "images");
    mkdirSync(images, { recursive: true });
    const text = runCli(["--images", images, "-c", SHOW_EVERYWHERE]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(".svg");
    const saved = readdirSync(images).filter((name) => name.endsWith(".svg"));
    expect(saved.length).toBeGreaterThan(0);
    for (const name of saved) expect(readFileSync(path.join(images, name), "utf8")).not.toContain(SECRET);
    expect(text.stdout).not.toContain(SECRET);
  }, 60_000);

  it("redacts them in the notebook `--output-notebook` writes", () => {
    const notebook = path.join(work, "leak.ipynb");
    const out = path.join(work, "leak-run.ipynb");
    const cell = {
      cell_type: "code",
      metadata: {},
      outputs: [],
      execution_count: null,
      source: SHOW_EVERYWHERE,
    };
    const metadata = { kernelspec: { display_name: "python", language: "python", name: "python3" } };
    writeFileSync(notebook, JSON.stringify({ cells: [cell], metadata, nbformat: 4, nbformat_minor: 5 }));
    const run = runCli([notebook, "--output-notebook", out]);
    expect(run.status).toBe(0);
    const written = readFileSync(out, "utf8");
    expect(written).toContain("image/svg+xml");
    expect(written).not.toContain(SECRET);
  }, 60_000);

  it("redacts them in MCP's structuredContent and content", async () => {
    const server = await startServer({ env: { [SECRET_NAME]: SECRET } });
    const result = await callEval(server.client, [{ code: SHOW_EVERYWHERE }]);
    const everything = JSON.stringify(result);
    expect(everything).toContain("REDACTED");
    expect(everything).not.toContain(SECRET);
  }, 60_000);
});
