// Interpreter resolution for a sandboxed session: what a cell could have written in the cwd is never run on the host.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePython } from "../../src/runtime/resolve-python.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "evalkit-untrusted-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const hasSystemPython = existsSync("/usr/bin/python3");

/** A project whose `.venv/bin/python` leaves a marker when anything runs it, as a cell could plant it. */
function plantedProject(name: string): { cwd: string; marker: string } {
  const cwd = path.join(root, name);
  const marker = path.join(root, `${name}-ran`);
  mkdirSync(path.join(cwd, ".venv", "bin"), { recursive: true });
  writeFileSync(path.join(cwd, ".venv", "pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.2\n");
  const python = path.join(cwd, ".venv", "bin", "python");
  writeFileSync(python, `#!/bin/sh\ntouch ${marker}\nexec /usr/bin/python3 "$@"\n`);
  chmodSync(python, 0o755);
  return { cwd, marker };
}

const options = (cwd: string) => ({
  cwd,
  env: { PATH: "/usr/bin:/bin", HOME: root },
  evalkitHome: path.join(root, "evalkit-home"),
  persistentCache: false,
});

describe.skipIf(!hasSystemPython)("resolvePython with untrusted directories", () => {
  it("runs a venv in the cwd when the session is not sandboxed (the control)", async () => {
    const { cwd, marker } = plantedProject("control");
    const resolved = await resolvePython(options(cwd));
    expect(resolved.source).toBe("cwd-venv");
    expect(existsSync(marker)).toBe(true);
  });

  it("skips a venv in a sandbox-writable cwd without running it, and says why", async () => {
    const { cwd, marker } = plantedProject("sandboxed");
    const resolved = await resolvePython({ ...options(cwd), untrusted: [cwd] });
    expect(resolved.source).toBe("PATH");
    expect(resolved.rejected).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("uses an explicit interpreter in a writable path without a preflight on the host", async () => {
    const { cwd, marker } = plantedProject("explicit");
    const python = path.join(cwd, ".venv", "bin", "python");
    const resolved = await resolvePython({ ...options(cwd), python, untrusted: [cwd] });
    expect(resolved).toMatchObject({ executable: python, checked: false, version: "3.11.2" });
    expect(existsSync(marker)).toBe(false);
  });
});
