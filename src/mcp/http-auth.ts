// Who may talk to `evalkit mcp --http`: the bearer token (where it comes from, checked in constant time) and
// the Host/Origin allow-lists that stop DNS rebinding.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EvalkitError } from "../errors.js";
import { resolveEvalkitHome } from "../runtime/evalkit-home.js";

/** Where the token came from; a generated one is in `file`, which is what gets printed (never the token). */
export interface ResolvedToken {
  readonly token: string;
  readonly source: "env" | "file" | "generated";
  readonly file?: string;
}

/** File name of the generated token under `$EVALKIT_HOME`. */
export const GENERATED_TOKEN_FILE = "mcp-token";
const MIN_TOKEN_CHARS = 16;

/**
 * The token: `--token-file` first, then `EVALKIT_MCP_TOKEN`, else the one under `$EVALKIT_HOME` (made on first
 * use, mode 0600, reused after so configured clients keep working). Throws INVALID_INPUT for an empty, short or
 * unreadable token.
 */
export function resolveToken(env: NodeJS.ProcessEnv, tokenFile: string | undefined): ResolvedToken {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, "utf8");
    } catch (err) {
      throw new EvalkitError("INVALID_INPUT", `cannot read the token file ${tokenFile}: ${errorText(err)}`, {
        field: "tokenFile",
      });
    }
    return { token: checkToken(text.trim(), `the token file ${tokenFile}`), source: "file", file: tokenFile };
  }
  const fromEnv = env.EVALKIT_MCP_TOKEN;
  if (fromEnv !== undefined) return { token: checkToken(fromEnv.trim(), "EVALKIT_MCP_TOKEN"), source: "env" };
  const file = path.join(resolveEvalkitHome(env), GENERATED_TOKEN_FILE);
  const existing = readPrivateToken(file);
  if (existing !== undefined) return { token: existing, source: "generated", file };
  const token = randomBytes(32).toString("base64url");
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // A file we cannot trust (others may read it, a symlink) is replaced, never written through.
  rmSync(file, { force: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  return { token, source: "generated", file };
}

/** A token file we made before, if it is still a regular file only its owner can read. */
function readPrivateToken(file: string): string | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || (stat.mode & 0o077) !== 0) return undefined;
    if (typeof process.getuid === "function" && stat.uid !== process.getuid()) return undefined;
    const token = readFileSync(file, "utf8").trim();
    return token.length >= MIN_TOKEN_CHARS ? token : undefined;
  } catch {
    return undefined;
  }
}

function checkToken(token: string, where: string): string {
  if (token.length < MIN_TOKEN_CHARS) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `${where} holds ${token.length === 0 ? "no token" : "a token shorter than 16 characters"}; use a long random one (openssl rand -hex 32)`,
      { field: "token" },
    );
  }
  return token;
}

/** Checks `Authorization: Bearer <token>` against the token without leaking, through timing, how much matched. */
export function createTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash("sha256").update(token).digest();
  return (authorization) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
    const given = createHash("sha256")
      .update(match?.[1] ?? "")
      .digest();
    // Both sides are 32-byte hashes, so the comparison's time says nothing about the token's length either.
    return timingSafeEqual(given, expected) && match !== null;
  };
}

/** Host names that mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** True for a loopback address or name (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return LOOPBACK_NAMES.has(bare) || /^127(\.\d{1,3}){3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

/** The allow-lists: extra names beyond the loopback ones, which are always allowed. */
export interface RequestOriginPolicy {
  /** Host names (or `name:port`) clients may address the server by. */
  allowedHosts: readonly string[];
  /** Browser origins (`https://app.example.com`) allowed to call; requests without `Origin` are not browsers. */
  allowedOrigins: readonly string[];
}

/** Why a request's Host or Origin is refused, or undefined when it is allowed. */
export function checkRequestOrigin(
  policy: RequestOriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): "host" | "origin" | undefined {
  if (host === undefined || !isHostAllowed(policy, host)) return "host";
  if (origin !== undefined && !isOriginAllowed(policy, origin)) return "origin";
  return undefined;
}

function isHostAllowed(policy: RequestOriginPolicy, host: string): boolean {
  const lower = host.toLowerCase();
  const name = hostName(lower);
  if (isLoopbackHost(name)) return true;
  return policy.allowedHosts.some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry === lower || entry === name;
  });
}

function isOriginAllowed(policy: RequestOriginPolicy, origin: string): boolean {
  const lower = origin.toLowerCase().replace(/\/+$/, "");
  if (policy.allowedOrigins.some((allowed) => allowed.toLowerCase().replace(/\/+$/, "") === lower))
    return true;
  try {
    const url = new URL(lower);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** `example.com:8080` → `example.com`; `[::1]:8080` → `::1`. */
function hostName(host: string): string {
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]") >>> 0);
  const colon = host.lastIndexOf(":");
  return colon === -1 || host.indexOf(":") !== colon ? host : host.slice(0, colon);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
