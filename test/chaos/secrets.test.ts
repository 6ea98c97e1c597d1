// Secrets: 20 secret-looking variables in the host environment never reach the kernel's environment, and
// a secret value a cell prints anyway (stdout, stderr, exceptions, results, artifacts) is redacted.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-chaos-secrets-"));
const artifactsDir = path.join(work, "artifacts");

/** Names a user really has: known provider keys, and names shaped like credentials (some under allowed prefixes). */
const SECRET_NAMES = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "HF_TOKEN",
  "NPM_TOKEN",
  "STRIPE_SECRET_KEY",
  "DATABASE_PASSWORD",
  "SLACK_BOT_TOKEN",
  "MY_SERVICE_APIKEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "SENTRY_AUTH_TOKEN",
  "JWT_PRIVATE_KEY",
  "EVALKIT_UPLOAD_TOKEN",
  "XDG_SECRET_STORE",
  "LC_API_KEY",
  "PIP_INDEX_URL",
];
const secrets = new Map(
  SECRET_NAMES.map((name, i) => [
    name,
    name === "PIP_INDEX_URL"
      ? `https://user:pw-${i}-Zq81x@pypi.example.com/simple`
      : `s3cr3t-${i}-${name.toLowerCase()}-Vx9Qk2`,
  ]),
);
const saved = new Map<string, string | undefined>();
const tools: EvalTool[] = [];

beforeAll(() => {
  for (const [name, value] of secrets) {
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

function leaksIn(text: string): string[] {
  return [...secrets].filter(([, value]) => text.includes(value)).map(([name]) => name);
}

describe("chaos: secrets in the host environment", () => {
  it("keeps all 20 secret-looking variables out of the kernel's environment", async () => {
    const tool = makeTool();
    const dump = path.join(work, "environ.json");
    const result = await tool.execute({
      cells: [
        {
          code: [
            "import json, os, subprocess",
            `with open(${JSON.stringify(dump)}, "w") as f:`,
            "    json.dump({'python': dict(os.environ),",
            "               'child': subprocess.run(['env', '-0'], capture_output=True).stdout.decode('utf-8', 'replace')}, f)",
          ].join("\n"),
        },
      ],
    });
    expect(result.details.cells[0]?.status).toBe("ok");
    const seen = JSON.parse(readFileSync(dump, "utf8")) as { python: Record<string, string>; child: string };
    expect(SECRET_NAMES.filter((name) => name in seen.python)).toEqual([]);
    expect(leaksIn(JSON.stringify(seen))).toEqual([]);
  });

  it("redacts secret values a cell prints anyway, in every output, the error and the artifact", async () => {
    const tool = makeTool();
    const source = path.join(work, "leak.json");
    writeFileSync(source, JSON.stringify(Object.fromEntries(secrets)));
    const code = [
      "import json, sys",
      `values = list(json.load(open(${JSON.stringify(source)})).values())`,
      "for i in range(4000):",
      "    print('line', i, values[i % len(values)])",
      "for v in values:",
      "    sys.stderr.write('stderr ' + v + '\\n')",
      "display({'text/plain': 'display ' + ' '.join(values)}, raw=True)",
      "raise RuntimeError('failed with ' + values[0])",
    ].join("\n");
    const result = await tool.execute({ cells: [{ code }] });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("error");
    expect(cell.error?.ename).toBe("RuntimeError");
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
    expect(JSON.stringify(result)).toContain("[REDACTED:OPENAI_API_KEY]");
    const uri = cell.truncated?.artifact;
    expect(uri).toBeDefined();
    const artifact = readFileSync(path.join(artifactsDir, `${uri!.replace("artifact://", "")}.out`), "utf8");
    expect(artifact).toContain("line 3999");
    expect(leaksIn(artifact)).toEqual([]);
  });
});
