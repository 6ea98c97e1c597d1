// Secret-shaped names never reach a kernel, under the allowed prefixes too; the values of credential-shaped names a
// cell prints back (read from a file: the kernel's environment never had them) are redacted, parts included; and the
// environment is read at every call, so a secret set a moment before a call is already hidden.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { TEST_PYTHON } from "../helpers/python.js";

const work = mkdtempSync(path.join(tmpdir(), "evalkit-secret-names-"));
const tools: EvalTool[] = [];

const AZURE_KEY = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==";
const PEM_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
const SENTRY_KEY = "e3b0c44298fc1c149afbf4c8996fb924";
/** Names under the allowed prefixes (LC_, XDG_, EVALKIT_) shaped like credentials. */
const PREFIXED = {
  EVALKIT_GITHUB_PAT: "ghp_prefixedPatValue0123456789",
  EVALKIT_DB_PASS: "prefixed-db-pass-Qx81",
  LC_DB_PWD: "prefixed-lc-pwd-Zk02",
  XDG_AUTH_COOKIE: "prefixed-cookie-Vw93",
};
/** Credential-shaped names whose values a cell might print back. */
const VALUES = {
  SMTP_PASS: "smtp-pass-Hq7w2x",
  DB_PASS: "db-pass-Lm4p9z",
  ADMIN_PWD: "admin-pwd-Rt5k1c",
  SERVICE_CREDENTIAL: "service-credential-Yu3n8v",
  SENTRY_DSN: `https://${SENTRY_KEY}@o1.ingest.sentry.io/42`,
  SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T000/B000/XXXXsecretXXXXwebhook",
  AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${AZURE_KEY};EndpointSuffix=core.windows.net`,
  NPM_CONFIG__AUTH: "bnBtLWF1dGgtdmFsdWUtMTIz",
  JWT: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLXZhbHVl",
  COOKIE: "session=cookie-value-Pp0o9i",
  PRIVATE_KEY_PEM: `-----BEGIN PRIVATE KEY-----\n${PEM_LINE}\nAnotherLineOfTheKeyBody0123456789abcdef\n-----END PRIVATE KEY-----`,
};
const ALL = { ...PREFIXED, ...VALUES };
/** What a program may print alone: the parts. */
const PARTS = { AZURE_KEY, PEM_LINE, SENTRY_KEY };
const saved = new Map<string, string | undefined>();

beforeAll(() => {
  for (const [name, value] of Object.entries({
    ...ALL,
    EVALKIT_HARMLESS_SETTING: "kept",
    XDG_DATA_DIRS: "/usr/share",
  })) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  delete process.env.LATE_SERVICE_TOKEN;
  rmSync(work, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});

function makeTool(): EvalTool {
  const tool = createEvalTool({ python: TEST_PYTHON, cwd: work, js: false });
  tools.push(tool);
  return tool;
}

function leaks(text: string, values: Record<string, string>): string[] {
  return Object.entries(values)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
}

describe("secret names and values", () => {
  it("keeps credential-shaped names under the allowed prefixes out of the kernel, and passes harmless ones", async () => {
    const result = await makeTool().execute({
      cells: [{ code: "import os, json\nprint(json.dumps(sorted(os.environ)))" }],
    });
    const names = JSON.parse(result.details.cells[0]?.text ?? "[]") as string[];
    expect(names.filter((name) => name in PREFIXED)).toEqual([]);
    expect(names).toContain("EVALKIT_HARMLESS_SETTING");
    expect(names).toContain("XDG_DATA_DIRS");
  }, 30_000);

  it("redacts every credential-shaped value a cell prints back, and the parts of one printed alone", async () => {
    const source = path.join(work, "values.json");
    writeFileSync(source, JSON.stringify({ ...ALL, ...PARTS }));
    const code = `import json\nfor name, value in json.load(open(${JSON.stringify(source)})).items():\n    print(name, value)`;
    const result = await makeTool().execute({ cells: [{ code }] });
    const everything = JSON.stringify(result);
    expect(result.details.cells[0]?.status).toBe("ok");
    expect(leaks(everything, { ...ALL, ...PARTS })).toEqual([]);
    expect(everything).toContain("[REDACTED:SMTP_PASS]");
    expect(everything).toContain("[REDACTED:AZURE_STORAGE_CONNECTION_STRING]");
  }, 30_000);

  it("reads the environment at every call: a secret set just before a call is redacted in it", async () => {
    const tool = makeTool();
    await tool.execute({ cells: [{ code: "1" }] });
    const value = "late-token-value-Gg5t6y";
    const source = path.join(work, "late.txt");
    writeFileSync(source, value);
    process.env.LATE_SERVICE_TOKEN = value;
    const result = await tool.execute({ cells: [{ code: `print(open(${JSON.stringify(source)}).read())` }] });
    expect(result.details.cells[0]?.text).toBe("[REDACTED:LATE_SERVICE_TOKEN]\n");
    expect(readFileSync(source, "utf8")).toBe(value);
  }, 30_000);
});
