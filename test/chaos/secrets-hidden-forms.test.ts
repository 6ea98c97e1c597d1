// Secrets in less obvious places: credentials inside proxy and database URLs, password variables, a secret split by
// an escape sequence, and a secret used as a JSON key. None reaches the kernel; none reaches the model or details.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-chaos-secret-forms-"));
const artifactsDir = path.join(work, "artifacts");

const ENV: Record<string, string> = {
  HTTP_PROXY: "http://proxyuser:Pr0xyPa55-Kq7@127.0.0.1:3128",
  https_proxy: "http://proxyuser:Pr0xyPa55-Kq7@127.0.0.1:3128",
  ALL_PROXY: "socks5://tok3nAsUser-Wm4z@127.0.0.1:1080",
  EVALKIT_DB_URL: "postgres://app:Db-Pa55w0rd-Lx2@db.example/app",
  PGPASSWORD: "pg-Pa55w0rd-Vb8",
  MYSQL_PWD: "my-Pa55w0rd-Nc3",
  EVALKIT_NGROK_AUTHTOKEN: "ngrok-Auth-Tk9-Qp2",
  EVALKIT_SIGNING_KEY: "signing-Key-Rt6-Zs1",
};
/** The strings that must never be seen, whatever their form. */
const SECRETS = [
  "Pr0xyPa55-Kq7",
  "tok3nAsUser-Wm4z",
  "Db-Pa55w0rd-Lx2",
  "pg-Pa55w0rd-Vb8",
  "my-Pa55w0rd-Nc3",
  "ngrok-Auth-Tk9-Qp2",
  "signing-Key-Rt6-Zs1",
];
const saved = new Map<string, string | undefined>();
const tools: EvalTool[] = [];

beforeAll(() => {
  for (const [name, value] of Object.entries(ENV)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(work, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});

function makeTool(): EvalTool {
  const tool = createEvalTool({ python: TEST_PYTHON, artifactsDir, cwd: work, js: false });
  tools.push(tool);
  return tool;
}

const leaksIn = (text: string) => SECRETS.filter((secret) => text.includes(secret));

describe("chaos: secrets hidden in URLs, password variables, escape sequences and JSON keys", () => {
  it("gives the kernel proxy URLs without user-info and none of the password variables", async () => {
    const tool = makeTool();
    const result = await tool.execute({
      cells: [{ code: "import os, json\nprint(json.dumps({k: v for k, v in os.environ.items()}))" }],
    });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    const seen = JSON.parse(cell.text) as Record<string, string>;
    expect(seen.HTTP_PROXY).toBe("http://127.0.0.1:3128");
    expect(seen.https_proxy).toBe("http://127.0.0.1:3128");
    expect(seen.ALL_PROXY).toBe("socks5://127.0.0.1:1080");
    for (const name of [
      "EVALKIT_DB_URL",
      "PGPASSWORD",
      "MYSQL_PWD",
      "EVALKIT_NGROK_AUTHTOKEN",
      "EVALKIT_SIGNING_KEY",
    ])
      expect(seen, name).not.toHaveProperty(name);
    expect(leaksIn(cell.text)).toEqual([]);
  });

  it("redacts them when printed, split by escape sequences, or used as JSON keys, in text, details and artifact", async () => {
    const tool = makeTool();
    const secrets = JSON.stringify(SECRETS);
    const code = [
      "import json",
      `secrets = json.loads(${JSON.stringify(secrets)})`,
      "for s in secrets:",
      "    print('plain', s)",
      "    print('split', s[:5] + '\\x1b[0m' + s[5:])",
      "    print('cr', 'x' * len(s) + '\\r' + s)",
      "display({'application/json': {s: {'nested ' + s: [s]} for s in secrets}}, raw=True)",
      "display({'text/plain': 'meta'}, metadata={'note': secrets[0], secrets[1]: 1}, raw=True)",
      "for i in range(8000):",
      "    print('filler line', i)",
    ].join("\n");
    const result = await tool.execute({ cells: [{ code }] });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(leaksIn(cell.text)).toEqual([]);
    expect(leaksIn(JSON.stringify(result.details))).toEqual([]);
    expect(leaksIn(JSON.stringify(result.content))).toEqual([]);
    expect(cell.text).toContain("split [REDACTED:");
    expect(JSON.stringify(cell.outputs)).toContain('"[REDACTED:HTTP_PROXY]":{"nested [REDACTED:HTTP_PROXY]"');
    const uri = cell.truncated?.artifact;
    expect(uri).toBeDefined();
    const artifact = readFileSync(path.join(artifactsDir, `${uri!.replace("artifact://", "")}.out`), "utf8");
    expect(artifact).toContain("filler line 7999");
    // The artifact is the raw output: a secret split by an escape sequence stays split there (see docs/output.md);
    // every secret that is whole in the raw text, JSON keys included, is redacted.
    const withoutSplit = artifact
      .split("\n")
      .filter((line) => !line.startsWith("split "))
      .join("\n");
    expect(leaksIn(withoutSplit)).toEqual([]);
  });
});
