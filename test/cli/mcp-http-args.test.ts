// `evalkit mcp` shows the --http flags in its help and refuses flag combinations that make no sense, exit 2.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function evalkit(args: string[]) {
  const env = { ...process.env, EVALKIT_MCP_TOKEN: "t".repeat(32) };
  return spawnSync(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env,
    timeout: 60_000,
  });
}

describe("evalkit mcp --http flags", () => {
  beforeAll(ensureBuilt, 150_000);

  it("lists every HTTP flag in mcp --help", () => {
    const help = evalkit(["mcp", "--help"]);
    expect(help.status).toBe(0);
    for (const flag of [
      "--http [HOST:]PORT",
      "--root DIR",
      "--token-file FILE",
      "--allowed-host NAME",
      "--allowed-origin URL",
      "--session-ttl SEC",
      "--max-sessions N",
      "EVALKIT_MCP_TOKEN",
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });

  it("refuses an HTTP flag without --http, --cwd with it, and a bad address or number, naming the flag", () => {
    const cases: [string[], string][] = [
      [["mcp", "--root", "/tmp"], "--root needs --http"],
      [["mcp", "--max-sessions", "3"], "--max-sessions needs --http"],
      [["mcp", "--http", "127.0.0.1:0", "--cwd", "/tmp"], "--cwd does not combine with --http"],
      [["mcp", "--http", "localhost:http"], "--http: expected [HOST:]PORT"],
      [["mcp", "--http", "0", "--max-sessions", "0"], "--max-sessions: expected 1 or more"],
      [["mcp", "--http", "0", "--session-ttl", "soon"], "--session-ttl: expected a number"],
      [["mcp", "--http", "0", "--token-file", "/nonexistent/token"], "cannot read the token file"],
      [
        ["mcp", "--http", "0", "--root", "/nonexistent/root"],
        'root: "/nonexistent/root" is not an existing directory',
      ],
    ];
    for (const [args, message] of cases) {
      const result = evalkit(args);
      expect(result.stderr).toContain(message);
      expect(result.status).toBe(2);
    }
  });
});
