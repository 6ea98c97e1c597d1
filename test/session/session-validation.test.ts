// The fast checks of cell and call requests accept exactly what the zod schemas accept, and reject with their message.
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import {
  sessionSchemas,
  validateCallRequest,
  validateCellRequest,
  validateInput,
} from "../../src/session/session-validation.js";

/** The message validation threw, or "ok". */
function verdict(check: () => void): string {
  try {
    check();
    return "ok";
  } catch (err) {
    if (!isEvalkitError(err, "INVALID_INPUT")) throw err;
    return err.message;
  }
}

const signal = new AbortController().signal;
const values: unknown[] = [
  undefined,
  null,
  "",
  "py",
  "js",
  "python",
  0,
  2.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  signal,
  () => 1,
  {},
  [],
];

describe("validateCellRequest", () => {
  it("agrees with the schema on every combination of field values", () => {
    const fields = ["language", "code", "timeoutSec", "reset", "signal", "onOutput"];
    let checked = 0;
    for (const field of fields) {
      for (const value of values) {
        for (const code of ["x = 1", 3, undefined]) {
          const request: Record<string, unknown> = { code, [field]: value };
          expect(
            verdict(() => validateCellRequest(request)),
            `${field}=${String(value)}`,
          ).toBe(verdict(() => validateInput(sessionSchemas().cell, request, "cell")));
          checked++;
        }
      }
    }
    for (const request of [null, undefined, [], "code", 1, { code: "1", extra: { anything: true } }]) {
      expect(verdict(() => validateCellRequest(request))).toBe(
        verdict(() => validateInput(sessionSchemas().cell, request, "cell")),
      );
    }
    expect(checked).toBeGreaterThan(200);
  });
});

describe("validateCallRequest", () => {
  it("agrees with the schema on every combination of field values", () => {
    const fields = ["sessionId", "cwd", "signal", "bridge", "onInputRequest"];
    for (const field of fields) {
      for (const value of [...values, { agent: () => 1 }, { agent: 1 }]) {
        const request = { [field]: value };
        expect(
          verdict(() => validateCallRequest(request)),
          `${field}=${String(value)}`,
        ).toBe(verdict(() => validateInput(sessionSchemas().call, request, "session call")));
      }
    }
    for (const request of [null, [], "s", {}, { sessionId: "a", cwd: "/tmp", signal }]) {
      expect(verdict(() => validateCallRequest(request))).toBe(
        verdict(() => validateInput(sessionSchemas().call, request, "session call")),
      );
    }
  });
});
