// A sandboxed session's cwd stays the directory it started in: swapped for a symlink or moved, it is refused.
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { CwdPins } from "../../src/session/cwd-pin.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "evalkit-cwd-pin-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  return dir;
}

function refusal(run: () => void): { field?: unknown; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (!isEvalkitError(err, "CWD_INVALID")) throw err;
    return { field: err.details.field, message: err.message };
  }
}

describe("CwdPins", () => {
  it("accepts the same directory call after call", () => {
    const pins = new CwdPins();
    const cwd = project("same");
    pins.check(cwd, cwd);
    expect(refusal(() => pins.check(cwd, cwd))).toBeUndefined();
  });

  it("refuses a cwd that became a symlink, naming the field, even while its real path is still the old one", () => {
    const pins = new CwdPins();
    const cwd = project("swapped");
    const elsewhere = project("elsewhere");
    pins.check(cwd, cwd);
    renameSync(cwd, `${cwd}.moved`);
    symlinkSync(elsewhere, cwd);
    // The caller's realpath may be cached for a second: the pin looks at the path itself (lstat).
    expect(refusal(() => pins.check(cwd, cwd))).toMatchObject({
      field: "cwd",
      message: expect.stringMatching(/is now a symlink/),
    });
    expect(refusal(() => pins.check(cwd, realpathSync(cwd)))).toMatchObject({
      message: expect.stringMatching(/now resolves to/),
    });
  });

  it("refuses a cwd that was moved away and replaced by another directory", () => {
    const pins = new CwdPins();
    const cwd = project("replaced");
    pins.check(cwd, cwd);
    renameSync(cwd, `${cwd}.old`);
    mkdirSync(cwd);
    expect(refusal(() => pins.check(cwd, cwd))?.message).toMatch(/is now another directory/);
  });

  it("keeps one pin per cwd: another directory is pinned on its own", () => {
    const pins = new CwdPins();
    const a = project("a");
    const b = project("b");
    pins.check(a, a);
    expect(refusal(() => pins.check(b, b))).toBeUndefined();
  });
});
