// The HTTP server's gatekeeping: the token's sources, its constant-time check, and the Host/Origin allow-lists.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkRequestOrigin,
  createTokenCheck,
  isLoopbackHost,
  resolveToken,
} from "../../src/mcp/http-auth.js";
import { parseListenAddress, resolveHttpOptions } from "../../src/mcp/http-options.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "evalkit-http-auth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("resolveToken", () => {
  it("takes --token-file over EVALKIT_MCP_TOKEN, and the variable when no file is given", () => {
    const file = path.join(dir, "token");
    writeFileSync(file, "from-the-file-0123456789\n");
    const env = { EVALKIT_MCP_TOKEN: "from-the-environment-0123", EVALKIT_HOME: dir };
    expect(resolveToken(env, file)).toMatchObject({ token: "from-the-file-0123456789", source: "file" });
    expect(resolveToken(env, undefined)).toMatchObject({ token: "from-the-environment-0123", source: "env" });
  });

  it("refuses an empty or short token and an unreadable file with INVALID_INPUT", () => {
    expect(() => resolveToken({ EVALKIT_MCP_TOKEN: "" }, undefined)).toThrow(/no token/);
    expect(() => resolveToken({ EVALKIT_MCP_TOKEN: "short" }, undefined)).toThrow(/shorter than 16/);
    expect(() => resolveToken({}, path.join(dir, "missing"))).toThrow(/cannot read the token file/);
  });

  it("makes a token once in EVALKIT_HOME, mode 0600, and reuses it; a file others can read is replaced", () => {
    const home = path.join(dir, "home");
    const made = resolveToken({ EVALKIT_HOME: home }, undefined);
    expect(made.source).toBe("generated");
    expect(made.file).toBe(path.join(home, "mcp-token"));
    expect(statSync(made.file ?? "").mode & 0o777).toBe(0o600);
    expect(resolveToken({ EVALKIT_HOME: home }, undefined).token).toBe(made.token);
    writeFileSync(made.file ?? "", "world-readable-token-0123456789");
    chmodSync(made.file ?? "", 0o644);
    const fresh = resolveToken({ EVALKIT_HOME: home }, undefined);
    expect(fresh.token).not.toBe("world-readable-token-0123456789");
    expect(readFileSync(made.file ?? "", "utf8").trim()).toBe(fresh.token);
    expect(statSync(made.file ?? "").mode & 0o777).toBe(0o600);
  });
});

describe("createTokenCheck", () => {
  it("accepts exactly `Bearer <token>` and nothing else", () => {
    const check = createTokenCheck("s3cret-token-0123456789");
    expect(check("Bearer s3cret-token-0123456789")).toBe(true);
    expect(check("bearer s3cret-token-0123456789")).toBe(true);
    expect(check("Bearer s3cret-token-012345678")).toBe(false);
    expect(check("Bearer s3cret-token-0123456789x")).toBe(false);
    expect(check("Basic s3cret-token-0123456789")).toBe(false);
    expect(check("s3cret-token-0123456789")).toBe(false);
    expect(check("Bearer ")).toBe(false);
    expect(check(undefined)).toBe(false);
  });
});

describe("checkRequestOrigin", () => {
  const policy = { allowedHosts: ["evalkit.example.com"], allowedOrigins: ["https://app.example.com"] };

  it("allows loopback and listed Hosts, refusing others (DNS rebinding)", () => {
    expect(checkRequestOrigin(policy, "127.0.0.1:8080", undefined)).toBeUndefined();
    expect(checkRequestOrigin(policy, "localhost:8080", undefined)).toBeUndefined();
    expect(checkRequestOrigin(policy, "[::1]:8080", undefined)).toBeUndefined();
    expect(checkRequestOrigin(policy, "evalkit.example.com", undefined)).toBeUndefined();
    expect(checkRequestOrigin(policy, "EVALKIT.example.com:443", undefined)).toBeUndefined();
    expect(checkRequestOrigin(policy, "attacker.example:8080", undefined)).toBe("host");
    expect(checkRequestOrigin(policy, undefined, undefined)).toBe("host");
  });

  it("allows requests without Origin, loopback and listed origins, refusing other browser origins", () => {
    expect(checkRequestOrigin(policy, "localhost", "http://localhost:3000")).toBeUndefined();
    expect(checkRequestOrigin(policy, "localhost", "https://app.example.com/")).toBeUndefined();
    expect(checkRequestOrigin(policy, "localhost", "https://evil.example")).toBe("origin");
    expect(checkRequestOrigin(policy, "localhost", "http://localhost.evil.example")).toBe("origin");
    expect(checkRequestOrigin(policy, "localhost", "null")).toBe("origin");
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "::", "10.0.0.1", "example.com"].some(isLoopbackHost)).toBe(false);
  });
});

describe("HTTP options", () => {
  it("reads [HOST:]PORT with 127.0.0.1 as the default host", () => {
    expect(parseListenAddress("8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseListenAddress("0.0.0.0:0")).toEqual({ host: "0.0.0.0", port: 0 });
    expect(parseListenAddress("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(parseListenAddress("localhost:80")).toEqual({ host: "localhost", port: 80 });
    for (const bad of ["", "host", "70000", "1.2.3.4:", "::1:80", "a:b:80"]) {
      expect(() => parseListenAddress(bad)).toThrow(/expected \[HOST:\]PORT/);
    }
  });

  it("names the option that is wrong", () => {
    expect(() => resolveHttpOptions({ maxSessions: 0 })).toThrow(/maxSessions/);
    expect(() => resolveHttpOptions({ sessionTtlSec: -1 })).toThrow(/sessionTtlSec/);
    expect(() => resolveHttpOptions({ token: "short" })).toThrow(/token/);
  });

  it("keeps EVALKIT_MCP_TOKEN out of the environment the sessions get", () => {
    const resolved = resolveHttpOptions({
      env: { EVALKIT_MCP_TOKEN: "x".repeat(20), EVALKIT_PY: "1" },
      root: dir,
    });
    expect(resolved.serverOptions.env).toEqual({ EVALKIT_PY: "1" });
    expect(resolved.root).toBe(dir);
  });
});
