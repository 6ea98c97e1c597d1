// Installing without the registry: `npm pack`, install the tarball into an empty folder, run exec and mcp there.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { TEST_PYTHON } from "../helpers/interpreters.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const work = mkdtempSync(path.join(os.tmpdir(), "evalkit-pack-"));
const app = path.join(work, "app");
const home = path.join(work, "home");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Network failures mean "cannot be had here", not "the package is broken". */
const NETWORK_ERRORS = /ENOTCACHED|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|ECONNRESET/;

let installError: string | undefined;
let evalkitBin = "";

function run(command: string, args: string[], cwd: string) {
  return spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, EVALKIT_HOME: home, npm_config_audit: "false", npm_config_fund: "false" },
    timeout: 240_000,
  });
}

describe("the packed package, installed into an empty folder", () => {
  beforeAll(async () => {
    // `npm pack` would run `prepare` (the build), which empties dist/ while other test files use it: build
    // through the shared helper instead, then pack what it made, as `npm pack` would.
    await ensureBuilt();
    const pack = run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT);
    if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
    const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as { filename: string }[];
    const tarball = path.join(work, path.basename(packed[0]?.filename ?? "missing.tgz"));
    mkdirSync(app, { recursive: true });
    writeFileSync(path.join(app, "package.json"), '{ "name": "app", "private": true }\n');
    // Dependencies come from npm's cache when it has them (CI's `npm ci` fills it), else from the registry.
    const install = run("npm", ["install", "--prefer-offline", tarball], app);
    if (install.status !== 0) {
      if (NETWORK_ERRORS.test(install.stderr)) installError = install.stderr.split("\n")[0];
      else throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
    }
    evalkitBin = path.join(app, "node_modules", ".bin", "evalkit");
  }, 300_000);

  it("runs Python and JavaScript cells with evalkit exec", (ctx) => {
    if (installError) ctx.skip(`the dependencies cannot be downloaded here: ${installError}`);
    const py = run(
      evalkitBin,
      [
        "exec",
        "--python",
        TEST_PYTHON,
        "-c",
        "import sys; print('py', sys.version_info[0])",
        "-c",
        "%env EVALKIT_PACK_TEST=1",
      ],
      app,
    );
    expect(py.stderr).toBe("");
    expect(py.status).toBe(0);
    expect(py.stdout).toContain("py 3\n");
    const js = run(evalkitBin, ["exec", "--lang", "js", "-c", "console.log('js', 6 * 7)", "--json"], app);
    expect(js.status, js.stderr).toBe(0);
    expect(JSON.parse(js.stdout).cells[0].text).toBe("js 42\n");
    if (process.platform === "linux") {
      // The host's guard ships with the package (python/host_guard.py) and runs beside the Python kernel.
      const findGuard = [
        "import os",
        "host = str(os.getppid())",
        "for pid in filter(str.isdigit, os.listdir('/proc')):",
        "    try: argv = open('/proc/%s/cmdline' % pid, 'rb').read().decode().split('\\0')",
        "    except OSError: continue",
        "    if 'evalkit-host-guard' in argv and host in argv: print(argv[3])",
      ].join("\n");
      const guarded = run(evalkitBin, ["exec", "--python", TEST_PYTHON, "-c", findGuard], app);
      expect(guarded.stdout).toBe(
        `${path.join(app, "node_modules", "evalkit", "python", "host_guard.py")}\n`,
      );
      // The JS kernel's subreaper parent ships with the package (python/subreaper_parent.py) and runs.
      const parent =
        "require('fs').readFileSync('/proc/' + process.ppid + '/cmdline', 'latin1').split('\\0')[3]";
      const wrapped = run(evalkitBin, ["exec", "--lang", "js", "-c", parent, "--json"], app);
      expect(JSON.parse(wrapped.stdout).cells[0].text).toBe(
        `'${path.join(app, "node_modules", "evalkit", "python", "subreaper_parent.py")}'\n`,
      );
    }
  }, 120_000);

  it("serves the eval tool with evalkit mcp", async (ctx) => {
    if (installError) ctx.skip(`the dependencies cannot be downloaded here: ${installError}`);
    const transport = new StdioClientTransport({
      command: evalkitBin,
      args: ["mcp", "--python", TEST_PYTHON],
      cwd: app,
      env: { ...(process.env as Record<string, string>), EVALKIT_HOME: home },
      stderr: "pipe",
    });
    const client = new Client({ name: "evalkit-pack-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: "eval",
        arguments: {
          cells: [{ code: "x = 20" }, { code: "x + 22" }, { language: "js", code: "'js ' + (6 * 7)" }],
        },
      })) as CallToolResult;
      expect(result.isError).toBe(false);
      const text = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
      expect(text).toContain("42");
      expect(text).toContain("js 42");
    } finally {
      await client.close();
    }
  }, 120_000);
});
