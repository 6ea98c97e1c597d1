// The kernel's environment: an allowlist of harmless variables, minus anything that looks like a secret.
import {
  hasUrlPassword,
  isProxyName,
  secretParts,
  stripUserInfo,
  userInfoSecrets,
} from "./env-credentials.js";

/** Variables passed to the kernel by name (compared case-insensitively, for Windows and lower-case proxies). */
export const ALLOWED_ENV_NAMES: readonly string[] = [
  // POSIX basics and locale
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TZ",
  // network: proxies and certificate bundles
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "NODE_EXTRA_CA_CERTS",
  "PIP_CERT",
  "PIP_INDEX_URL",
  "PIP_EXTRA_INDEX_URL",
  "PIP_TRUSTED_HOST",
  // Python and its environment managers
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "CONDA_DEFAULT_ENV",
  "CONDA_EXE",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONWARNINGS",
  "PYTHONHASHSEED",
  "PYTHONUTF8",
  "PYTHONPYCACHEPREFIX",
  "PYTHONSAFEPATH",
  "PYTHONUSERBASE",
  "PYENV_ROOT",
  "PYENV_VERSION",
  "MPLBACKEND",
  "MPLCONFIGDIR",
  // native libraries and compute
  "LD_LIBRARY_PATH",
  "CUDA_VISIBLE_DEVICES",
  "CUDA_HOME",
  "OMP_NUM_THREADS",
  "MKL_NUM_THREADS",
  "OPENBLAS_NUM_THREADS",
  // Windows
  "SYSTEMROOT",
  "SYSTEMDRIVE",
  "COMSPEC",
  "PATHEXT",
  "WINDIR",
  "USERPROFILE",
  "USERNAME",
  "USERDOMAIN",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "PROGRAMDATA",
  "ALLUSERSPROFILE",
  "PUBLIC",
  "PROGRAMFILES",
  "PROGRAMFILES(X86)",
  "PROGRAMW6432",
  "COMMONPROGRAMFILES",
  "COMPUTERNAME",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
  "OS",
];

/** Name prefixes passed to the kernel (still subject to the secret denylist). */
export const ALLOWED_ENV_PREFIXES: readonly string[] = ["LC_", "XDG_", "EVALKIT_"];

/** Secret variables removed by name even when the allowlist or a prefix would let them through. */
export const DENIED_ENV_NAMES: readonly string[] = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "XAI_API_KEY",
  "OPENROUTER_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AZURE_OPENAI_API_KEY",
  "AZURE_CLIENT_SECRET",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITLAB_TOKEN",
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "NPM_TOKEN",
  "PYPI_TOKEN",
  "PGPASSWORD",
  "MYSQL_PWD",
];

// Anything shaped like a credential, whatever its prefix (EVALKIT_, LC_, XDG_ included): FOO_API_KEY, FOO_APIKEY,
// *_KEY, *_SECRET*, *_TOKEN, *_AUTHTOKEN, *_PASSWORD, *_PASSWD, *_PASS, *_PWD (not PWD/OLDPWD, the working
// directory), *_PAT (personal access tokens), *_CREDENTIAL(S), *_DSN (Sentry-style URLs with a key), *WEBHOOK*
// (a webhook URL is its own secret), *_CONNECTION_STRING / *_CONN_STR (keys inside), *_AUTH (npm's `_auth`),
// JWT, COOKIE, *_PEM (the name itself may be just the suffix, e.g. SECRET_KEY, JWT).
const SECRET_PATTERNS: readonly RegExp[] = [
  /(^|_)API_?KEY$/,
  /(^|_)KEY$/,
  /AUTHTOKEN$/,
  /(^|_)SECRET/,
  /(^|_)TOKEN$/,
  /(^|_)(PASSWORD|PASSWD|PASS|PASSPHRASE)$/,
  /_PWD$/,
  /(^|_)PAT$/,
  /(^|_)CREDENTIALS?$/,
  /(^|_)PRIVATE_KEY/,
  /(^|_)ACCESS_KEY$/,
  /(^|_)DSN$/,
  /WEBHOOK/,
  /(^|_)(CONNECTION_STRING|CONN_STR|CONNSTR)$/,
  /(^|_)AUTH$/,
  /(^|_)JWT(_|$)/,
  /COOKIE/,
  /(^|_)PEM$/,
];

const ALLOWED_SET = new Set(ALLOWED_ENV_NAMES);
const DENIED_SET = new Set(DENIED_ENV_NAMES);

/** Every pattern in one expression: a name is tested once, not once per pattern. */
const SECRET_PATTERN = new RegExp(SECRET_PATTERNS.map((pattern) => `(?:${pattern.source})`).join("|"));

// Redaction reads the environment at every call, and its names hardly ever change: each is judged once.
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 4096;

/** True when `name` is a known secret variable or shaped like one (`*_API_KEY`, `*_TOKEN`, `*_SECRET*`...). */
export function isSecretName(name: string): boolean {
  let verdict = verdicts.get(name);
  if (verdict === undefined) {
    const upper = name.toUpperCase();
    verdict = DENIED_SET.has(upper) || SECRET_PATTERN.test(upper);
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(name, verdict);
  }
  return verdict;
}

// A URL with user:password@ in it is a credential in any variable; a package index URL with any user-info
// (a token as the user name) too. Without, it is harmless and pip needs it. Proxies are handled apart: their
// URL is kept without the user-info.
function carriesCredentials(name: string, value: string): boolean {
  if (!value.includes("://")) return false;
  if (name.toUpperCase().startsWith("PIP_") && /:\/\/[^/\s]*@/.test(value)) return true;
  return hasUrlPassword(value);
}

/** Options for {@link filterEnv}. */
export interface FilterEnvOptions {
  /**
   * Variables the embedder adds explicitly. They are set last and win over everything, including the
   * denylist: they were asked for by name.
   */
  extra?: Record<string, string>;
  /**
   * More variables to pass through from the parent. `NAME` passes that variable even when it looks like a
   * secret (it was named); `PREFIX_*` passes a prefix, still subject to the denylist.
   */
  allow?: string[];
}

/**
 * Builds the kernel's environment from `parentEnv`: allowlisted names and prefixes pass, secret-looking
 * names are removed, `PYTHONUNBUFFERED=1` and `PYTHONIOENCODING=utf-8` are set, then `extra` is applied.
 */
export function filterEnv(
  parentEnv: NodeJS.ProcessEnv | Record<string, string | undefined>,
  options: FilterEnvOptions = {},
): Record<string, string> {
  const allowNames = new Set<string>();
  const allowPrefixes: string[] = [];
  for (const entry of options.allow ?? []) {
    if (entry.endsWith("*")) allowPrefixes.push(entry.slice(0, -1).toUpperCase());
    else allowNames.add(entry.toUpperCase());
  }
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (allowNames.has(upper)) {
      result[name] = value;
      continue;
    }
    const allowed =
      ALLOWED_SET.has(upper) ||
      ALLOWED_ENV_PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
      allowPrefixes.some((prefix) => upper.startsWith(prefix));
    if (!allowed || isSecretName(name)) continue;
    if (isProxyName(name)) result[name] = stripUserInfo(value);
    else if (!carriesCredentials(name, value)) result[name] = value;
  }
  result.PYTHONUNBUFFERED = "1";
  result.PYTHONIOENCODING = "utf-8";
  for (const [name, value] of Object.entries(options.extra ?? {})) result[name] = value;
  return result;
}

/** A secret found in an environment, for redacting its value from output. */
export interface SecretValue {
  name: string;
  value: string;
}

/** Minimum length of a value worth redacting: shorter ones ("1", "true") would mangle ordinary output. */
export const MIN_SECRET_VALUE_LENGTH = 6;

/** Shortest URL password redacted (the redactor's own floor): proxy passwords are often short. */
const MIN_URL_PASSWORD_LENGTH = 4;

/**
 * The values of secret-looking variables in `env`, longest first (so a redactor replaces a value before
 * any shorter value contained in it). Values shorter than 6 characters are ignored; duplicates appear once.
 */
export function collectSecretValues(
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): SecretValue[] {
  const seen = new Set<string>();
  const found: SecretValue[] = [];
  const add = (name: string, value: string) => {
    if (seen.has(value)) return;
    seen.add(value);
    found.push({ name, value });
  };
  // Keys, then each value: on `process.env` (read at every call) this is about half the cost of Object.entries.
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (value === undefined) continue;
    // Passwords in URLs join the list on their own: the kernel may see the URL without them (proxies), and
    // a program may print the password alone or percent-decoded.
    if (value.includes("://"))
      for (const secret of userInfoSecrets(name, value, MIN_URL_PASSWORD_LENGTH)) add(name, secret);
    if (value.length < MIN_SECRET_VALUE_LENGTH) continue;
    if (isSecretName(name)) {
      add(name, value);
      // A program may print one part alone: the AccountKey of a connection string, a PEM line, a DSN's key.
      for (const part of secretParts(value, MIN_SECRET_VALUE_LENGTH)) add(name, part);
    } else if (carriesCredentials(name, value)) add(name, value);
  }
  return found.sort((a, b) => b.value.length - a.value.length);
}
