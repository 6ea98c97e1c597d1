// The kernel environment: allowlist, secret denylist, forced Python variables, embedder extras, secret collection.
import { describe, expect, it } from "vitest";
import { secretParts } from "../../src/runtime/env-credentials.js";
import { collectSecretValues, filterEnv, isSecretName } from "../../src/runtime/env-filter.js";

const parent = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/ada",
  LANG: "en_US.UTF-8",
  LC_ALL: "en_US.UTF-8",
  XDG_CACHE_HOME: "/home/ada/.cache",
  https_proxy: "http://proxy:3128",
  HTTPS_PROXY: "http://proxy:3128",
  SSL_CERT_FILE: "/etc/ssl/cert.pem",
  VIRTUAL_ENV: "/home/ada/.venv",
  PYTHONPATH: "/home/ada/lib",
  SYSTEMROOT: "C:\\Windows",
  EVALKIT_HOME: "/home/ada/.evalkit",
  OPENAI_API_KEY: "sk-openai-1234567890",
  ANTHROPIC_API_KEY: "sk-ant-1234567890",
  AWS_SECRET_ACCESS_KEY: "aws-secret-value",
  GITHUB_TOKEN: "ghp_abcdefghijkl",
  EVALKIT_SECRET_TOKEN: "evalkit-secret-value",
  EVALKIT_API_KEY: "evalkit-api-value",
  XDG_SESSION_PASSWORD: "hunter2hunter2",
  DATABASE_PASSWORD: "db-password-1",
  SOME_RANDOM_VAR: "not allowed",
  NODE_OPTIONS: "--require /tmp/evil.js",
  PYTHONUNBUFFERED: "0",
};

describe("filterEnv", () => {
  const env = filterEnv(parent);

  it("passes allowlisted names and the LC_, XDG_ and EVALKIT_ prefixes", () => {
    expect(env).toMatchObject({
      PATH: "/usr/bin:/bin",
      HOME: "/home/ada",
      LANG: "en_US.UTF-8",
      LC_ALL: "en_US.UTF-8",
      XDG_CACHE_HOME: "/home/ada/.cache",
      https_proxy: "http://proxy:3128",
      HTTPS_PROXY: "http://proxy:3128",
      SSL_CERT_FILE: "/etc/ssl/cert.pem",
      VIRTUAL_ENV: "/home/ada/.venv",
      PYTHONPATH: "/home/ada/lib",
      SYSTEMROOT: "C:\\Windows",
      EVALKIT_HOME: "/home/ada/.evalkit",
    });
  });

  it("drops variables that are not on the allowlist", () => {
    expect(env.SOME_RANDOM_VAR).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
  });

  it("drops every secret, including ones a prefix would have let through", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "AWS_SECRET_ACCESS_KEY",
      "GITHUB_TOKEN",
      "EVALKIT_SECRET_TOKEN",
      "EVALKIT_API_KEY",
      "XDG_SESSION_PASSWORD",
      "DATABASE_PASSWORD",
    ]) {
      expect(env[name], name).toBeUndefined();
    }
    const values = Object.values(env).join("\n");
    expect(values).not.toContain("sk-");
    expect(values).not.toContain("secret-value");
  });

  it("forces unbuffered UTF-8 Python output over the parent's settings", () => {
    expect(env.PYTHONUNBUFFERED).toBe("1");
    expect(env.PYTHONIOENCODING).toBe("utf-8");
  });

  it("adds the embedder's extra variables last, even a secret-looking one, because it was asked for", () => {
    const withExtra = filterEnv(parent, {
      extra: { MY_TOOL_TOKEN: "given-on-purpose", PATH: "/opt/bin", PYTHONIOENCODING: "latin-1" },
    });
    expect(withExtra.MY_TOOL_TOKEN).toBe("given-on-purpose");
    expect(withExtra.PATH).toBe("/opt/bin");
    expect(withExtra.PYTHONIOENCODING).toBe("latin-1");
  });

  it("passes extra names and prefixes from `allow`; a named secret passes, a prefix still drops secrets", () => {
    const allowed = filterEnv(
      { ...parent, MYAPP_MODE: "fast", MYAPP_TOKEN: "prefix-secret", OPENAI_API_KEY: "sk-named-on-purpose" },
      { allow: ["SOME_RANDOM_VAR", "MYAPP_*", "OPENAI_API_KEY"] },
    );
    expect(allowed.SOME_RANDOM_VAR).toBe("not allowed");
    expect(allowed.MYAPP_MODE).toBe("fast");
    expect(allowed.MYAPP_TOKEN).toBeUndefined();
    expect(allowed.OPENAI_API_KEY).toBe("sk-named-on-purpose");
  });

  it("drops a package index URL that carries credentials and keeps one that does not", () => {
    expect(filterEnv({ PIP_INDEX_URL: "https://user:pw@pypi.corp/simple" }).PIP_INDEX_URL).toBeUndefined();
    expect(filterEnv({ PIP_INDEX_URL: "https://pypi.corp/simple" }).PIP_INDEX_URL).toBe(
      "https://pypi.corp/simple",
    );
  });

  it("matches names case-insensitively, as Windows does", () => {
    const windows = filterEnv({
      Path: "C:\\bin",
      SystemRoot: "C:\\Windows",
      openai_api_key: "sk-lower-case-key",
    });
    expect(windows).toMatchObject({ Path: "C:\\bin", SystemRoot: "C:\\Windows" });
    expect(windows.openai_api_key).toBeUndefined();
  });
});

describe("isSecretName", () => {
  it("recognises known names and credential-shaped names", () => {
    for (const name of [
      "GEMINI_API_KEY",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "MISTRAL_API_KEY",
      "GROQ_API_KEY",
      "XAI_API_KEY",
      "OPENROUTER_API_KEY",
      "AWS_SESSION_TOKEN",
      "GH_TOKEN",
      "GITLAB_TOKEN",
      "HF_TOKEN",
      "STRIPE_SECRET_KEY",
      "CLIENT_SECRET",
      "SMTP_PASSWD",
      "SERVICE_CREDENTIALS",
      "SECRET_KEY",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it("leaves ordinary names alone", () => {
    for (const name of [
      "PATH",
      "HOME",
      "TOKENIZERS_PARALLELISM",
      "LC_ALL",
      "KEYBOARD",
      "PASSWORD_STORE_DIR",
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe("collectSecretValues", () => {
  it("returns the values of secret variables, longest first, ignoring short and duplicate values", () => {
    const found = collectSecretValues({
      OPENAI_API_KEY: "sk-short-key",
      ANOTHER_TOKEN: "sk-short-key",
      GITHUB_TOKEN: "ghp_a_much_longer_token_value",
      DEBUG_TOKEN: "1",
      HOME: "/home/ada",
      PIP_INDEX_URL: "https://user:pw@pypi.corp/simple",
    });
    expect(found).toEqual([
      { name: "PIP_INDEX_URL", value: "https://user:pw@pypi.corp/simple" },
      { name: "GITHUB_TOKEN", value: "ghp_a_much_longer_token_value" },
      { name: "OPENAI_API_KEY", value: "sk-short-key" },
    ]);
  });
});

describe("credentials inside values and password variables", () => {
  const env = {
    PATH: "/usr/bin",
    HTTP_PROXY: "http://proxyuser:Pr0xy-Pass@proxy.corp:3128",
    https_proxy: "http://proxyuser:Pr0xy-Pass@proxy.corp:3128/",
    ALL_PROXY: "socks5://tok3n-as-user@socks.corp:1080",
    all_proxy: "socks5://socks.corp:1080",
    EVALKIT_DB_URL: "postgres://app:db%2FPa55word@db.corp/app",
    EVALKIT_DOCS_URL: "https://docs.corp/evalkit",
    EVALKIT_GIT_REMOTE: "ssh://git@git.corp/repo.git",
    PGPASSWORD: "pg-password-value",
    MYSQL_PWD: "mysql-password-value",
    EVALKIT_NGROK_AUTHTOKEN: "ngrok-auth-token-value",
    EVALKIT_SIGNING_KEY: "signing-key-value",
    EVALKIT_CLIENT_SECRET_FILE: "/run/secrets/client",
    XDG_ADMIN_PASSWD: "admin-passwd-value",
  };

  it("keeps proxy URLs, upper- and lower-case, without their user-info", () => {
    const out = filterEnv(env);
    expect(out.HTTP_PROXY).toBe("http://proxy.corp:3128");
    expect(out.https_proxy).toBe("http://proxy.corp:3128/");
    expect(out.ALL_PROXY).toBe("socks5://socks.corp:1080");
    expect(out.all_proxy).toBe("socks5://socks.corp:1080");
  });

  it("drops a URL with a password from any allowed variable and keeps URLs without one", () => {
    const out = filterEnv(env);
    expect(out).not.toHaveProperty("EVALKIT_DB_URL");
    expect(out.EVALKIT_DOCS_URL).toBe("https://docs.corp/evalkit");
    expect(out.EVALKIT_GIT_REMOTE).toBe("ssh://git@git.corp/repo.git");
  });

  it("drops password variables even when a prefix or an `allow` prefix would let them through", () => {
    const out = filterEnv(env, { allow: ["PG*", "MYSQL_*"] });
    for (const name of [
      "PGPASSWORD",
      "MYSQL_PWD",
      "EVALKIT_NGROK_AUTHTOKEN",
      "EVALKIT_SIGNING_KEY",
      "EVALKIT_CLIENT_SECRET_FILE",
      "XDG_ADMIN_PASSWD",
    ])
      expect(out, name).not.toHaveProperty(name);
  });

  it("puts URL passwords (as written and percent-decoded), proxy tokens and password variables on the redaction list", () => {
    const found = collectSecretValues(env);
    const values = found.map((s) => s.value);
    expect(values).toContain("Pr0xy-Pass");
    expect(values).toContain("tok3n-as-user");
    expect(values).toContain("db%2FPa55word");
    expect(values).toContain("db/Pa55word");
    expect(values).toContain("postgres://app:db%2FPa55word@db.corp/app");
    for (const value of [
      "pg-password-value",
      "mysql-password-value",
      "ngrok-auth-token-value",
      "signing-key-value",
      "admin-passwd-value",
    ])
      expect(values).toContain(value);
    expect(found.find((s) => s.value === "Pr0xy-Pass")?.name).toBe("HTTP_PROXY");
    // A user name without a password (ssh://git@...) is not a secret, nor is a URL without user-info.
    expect(values).not.toContain("git");
    expect(values).not.toContain("https://docs.corp/evalkit");
  });
});

describe("secret-name rules for every name", () => {
  it("treats passwords, PATs, DSNs, webhooks, connection strings, npm's _auth, JWTs, cookies and PEMs as secrets", () => {
    for (const name of [
      "EVALKIT_GITHUB_PAT",
      "EVALKIT_DB_PASS",
      "LC_DB_PWD",
      "XDG_AUTH_COOKIE",
      "SMTP_PASS",
      "ADMIN_PWD",
      "SERVICE_CREDENTIAL",
      "SENTRY_DSN",
      "SLACK_WEBHOOK_URL",
      "AZURE_STORAGE_CONNECTION_STRING",
      "NPM_CONFIG__AUTH",
      "npm_config__auth",
      "JWT",
      "COOKIE",
      "PRIVATE_KEY_PEM",
      "GPG_PASSPHRASE",
    ])
      expect(isSecretName(name), name).toBe(true);
  });

  it("leaves the working directory, locale and evalkit's own settings alone", () => {
    for (const name of [
      "PWD",
      "OLDPWD",
      "LC_ALL",
      "XDG_RUNTIME_DIR",
      "EVALKIT_HOME",
      "EVALKIT_PYTHON",
      "PATH",
      "SSH_AUTH_SOCK",
      "PASSAGE",
    ])
      expect(isSecretName(name), name).toBe(false);
  });

  it("keeps credential-shaped names under allowed prefixes out of the kernel's environment", () => {
    const env = filterEnv({ EVALKIT_DB_PASS: "x".repeat(10), LC_DB_PWD: "y".repeat(10), LC_ALL: "C.UTF-8" });
    expect(Object.keys(env).sort()).toEqual(["LC_ALL", "PYTHONIOENCODING", "PYTHONUNBUFFERED"]);
  });
});

describe("secretParts", () => {
  it("finds a connection string's key, a PEM block's lines and a DSN's key", () => {
    expect(secretParts("Protocol=https;AccountName=a;AccountKey=abcdefgh123==;Suffix=x", 6)).toEqual([
      "abcdefgh123==",
    ]);
    expect(secretParts("Server=db;User Id=me;Password=hunter22;", 6)).toEqual(["hunter22"]);
    expect(secretParts("-----BEGIN KEY-----\\nAAAABBBBCCCCDDDDEEEE\\n-----END KEY-----", 6)).toEqual([
      "AAAABBBBCCCCDDDDEEEE",
    ]);
    expect(secretParts("https://0123456789abcdef@sentry.io/1", 6)).toEqual(["0123456789abcdef"]);
  });
});
