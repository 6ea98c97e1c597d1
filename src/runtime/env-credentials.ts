// Credentials inside variable values: the user-info of URLs (`scheme://user:password@host`), found, stripped
// from proxy URLs and collected for redaction.

/** Proxy variables whose URL is kept without its user-info (compared upper-case: `http_proxy` too). */
export const PROXY_ENV_NAMES: readonly string[] = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY"];

const PROXY_SET = new Set(PROXY_ENV_NAMES);

// `scheme://` then the user-info up to the first `@` before any path, query, fragment or blank.
const USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)([^/?#\s@]*)@/gi;

/** True for HTTP_PROXY, https_proxy and the like. */
export function isProxyName(name: string): boolean {
  return PROXY_SET.has(name.toUpperCase());
}

/** The user-info parts of every URL in `value` (`user:password`, or a bare `user`). */
export function findUserInfo(value: string): string[] {
  const found: string[] = [];
  for (const match of value.matchAll(USER_INFO)) if (match[2]) found.push(match[2]);
  return found;
}

/** True when a URL in `value` carries a password (`user:password@`, password not empty). */
export function hasUrlPassword(value: string): boolean {
  return findUserInfo(value).some((info) => passwordOf(info) !== "");
}

/** `value` with the user-info of every URL removed: `http://u:p@proxy:3128` -> `http://proxy:3128`. */
export function stripUserInfo(value: string): string {
  return value.replace(USER_INFO, "$1");
}

function passwordOf(userInfo: string): string {
  const colon = userInfo.indexOf(":");
  return colon === -1 ? "" : userInfo.slice(colon + 1);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secrets inside URL user-info worth redacting: each password (as written and percent-decoded) and,
 * for proxies, a bare user-info too (a token used as the user name). Values shorter than `minLength` are left out.
 */
export function userInfoSecrets(name: string, value: string, minLength: number): string[] {
  const secrets = new Set<string>();
  const isProxy = isProxyName(name);
  for (const info of findUserInfo(value)) {
    const password = passwordOf(info);
    const candidates = password !== "" ? [password, decoded(password)] : isProxy ? [info, decoded(info)] : [];
    for (const candidate of candidates) if (candidate.length >= minLength) secrets.add(candidate);
  }
  return [...secrets];
}

// `Key=Value` pairs of connection strings (Azure's `AccountKey=...;`, ADO.NET's `Password=...;`) whose key names
// a credential.
const CREDENTIAL_PAIR = /(?:^|;)\s*([A-Za-z ]*?(?:key|password|pwd|secret|token|signature))\s*=\s*([^;]+)/gi;

/** Body lines of PEM blocks are redacted one by one, whether the value holds real newlines or `\n` escapes. */
const PEM_BEGIN = "-----BEGIN ";
const MIN_PEM_LINE_LENGTH = 16;

/**
 * The parts of a secret value a program may print on their own: credentials inside a connection string, the lines of
 * a PEM block, and the user-info of a URL used as a key (a Sentry DSN `https://<key>@host/1`). Values shorter than
 * `minLength` are left out.
 */
export function secretParts(value: string, minLength: number): string[] {
  const parts = new Set<string>();
  if (value.includes("=") && value.includes(";"))
    for (const match of value.matchAll(CREDENTIAL_PAIR)) {
      const part = match[2]?.trim() ?? "";
      if (part.length >= minLength) parts.add(part);
    }
  if (value.includes(PEM_BEGIN))
    for (const line of value.split(/\\n|\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_PEM_LINE_LENGTH && !trimmed.startsWith("-----")) parts.add(trimmed);
    }
  if (value.includes("://"))
    for (const info of findUserInfo(value)) {
      const user = info.includes(":") ? info.slice(0, info.indexOf(":")) : info;
      if (user.length >= minLength) parts.add(user);
    }
  parts.delete(value);
  return [...parts];
}
