// Secrets per call: read afresh at every call (no cache across calls), the same list object while nothing changed
// (so compiled redactors are reused), and read once within a call.
import { afterEach, describe, expect, it } from "vitest";
import { createSecretReader } from "../../src/tool/secret-snapshot.js";

afterEach(() => {
  delete process.env.SNAPSHOT_TEST_TOKEN;
});

describe("createSecretReader", () => {
  it("sees a secret set between two calls at once, and redacts with it", () => {
    const reader = createSecretReader({});
    const first = reader.forCall();
    expect(first.list().some((secret) => secret.name === "SNAPSHOT_TEST_TOKEN")).toBe(false);
    process.env.SNAPSHOT_TEST_TOKEN = "snapshot-token-Qw12er";
    const second = reader.forCall();
    expect(second.redact("x snapshot-token-Qw12er y")).toBe("x [REDACTED:SNAPSHOT_TEST_TOKEN] y");
  });

  it("gives the same list object while the environment is unchanged, and reads once per call", () => {
    const reader = createSecretReader({ EXTRA_API_KEY: "extra-key-value-123" });
    const call = reader.forCall();
    const list = call.list();
    expect(list.some((secret) => secret.name === "EXTRA_API_KEY")).toBe(true);
    process.env.SNAPSHOT_TEST_TOKEN = "snapshot-token-Zx98cv";
    expect(call.list()).toBe(list);
    const next = reader.forCall().list();
    expect(next).not.toBe(list);
    expect(reader.forCall().list()).toBe(next);
  });

  it("reads the environment when the list is first asked for, not when the call opens", () => {
    const call = createSecretReader({}).forCall();
    process.env.SNAPSHOT_TEST_TOKEN = "set-after-the-call-opened";
    expect(call.list().some((secret) => secret.value === "set-after-the-call-opened")).toBe(true);
  });
});
