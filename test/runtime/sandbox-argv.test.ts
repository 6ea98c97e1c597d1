// The bwrap command line: what is shown, writable, hidden and unshared, in an order where later mounts win.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSandboxArgv, installPrefixes } from "../../src/runtime/sandbox-argv.js";
import { probeSandbox } from "../../src/runtime/sandbox-probe.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-argv-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The `--flag a b` triples of an argv, for order checks. */
function mounts(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === "--bind" || flag === "--ro-bind") out.push(`${flag} ${argv[i + 1]}`);
    if (flag === "--tmpfs") out.push(`--tmpfs ${argv[i + 1]}`);
  }
  return out;
}

describe("buildSandboxArgv", () => {
  const home = join(root, "home");
  const cwd = join(home, "project");
  mkdirSync(cwd, { recursive: true });

  it("hides the home, then shows the cwd inside it writable, and ends with the namespaces and --", () => {
    const argv = buildSandboxArgv({
      bwrap: "/usr/bin/bwrap",
      sandbox: { network: false, writable: [] },
      cwd,
      executables: ["/usr/bin/python3"],
      home,
    });
    expect(argv[0]).toBe("/usr/bin/bwrap");
    const order = mounts(argv);
    expect(order.indexOf(`--tmpfs ${home}`)).toBeLessThan(order.indexOf(`--bind ${cwd}`));
    expect(order).toContain("--tmpfs /tmp");
    expect(order).not.toContain("--ro-bind /"); // never the whole root: /run, /var, /home stay out
    expect(argv).toEqual(expect.arrayContaining(["--unshare-net", "--unshare-pid", "--die-with-parent"]));
    expect(argv.slice(-5)).toEqual(["--cap-drop", "ALL", "--die-with-parent", "--new-session", "--"]);
    expect(argv[argv.indexOf("--chdir") + 1]).toBe(cwd);
  });

  it("keeps the network namespace only with network: true", () => {
    const spec = { bwrap: "bwrap", cwd, executables: [], home };
    expect(buildSandboxArgv({ ...spec, sandbox: { network: true, writable: [] } })).not.toContain(
      "--unshare-net",
    );
  });

  it("binds an interpreter's prefix read-only, and a venv's base prefix, but not what the cwd already shows", () => {
    const base = join(root, "pyenv", "versions", "3.12.1");
    mkdirSync(join(base, "bin"), { recursive: true });
    writeFileSync(join(base, "bin", "python3.12"), "");
    const venv = join(root, "venv-elsewhere");
    mkdirSync(join(venv, "bin"), { recursive: true });
    symlinkSync(join(base, "bin", "python3.12"), join(venv, "bin", "python"));
    writeFileSync(join(venv, "pyvenv.cfg"), `home = ${join(base, "bin")}\n`);
    expect(installPrefixes(join(venv, "bin", "python")).sort()).toEqual([base, venv].sort());

    const argv = buildSandboxArgv({
      bwrap: "bwrap",
      sandbox: { network: false, writable: [] },
      cwd,
      executables: [join(venv, "bin", "python"), join(cwd, ".venv", "bin", "python")],
      home,
    });
    const order = mounts(argv);
    expect(order).toContain(`--ro-bind ${base}`);
    expect(order).toContain(`--ro-bind ${venv}`);
    expect(order.some((m) => m.includes(join(cwd, ".venv")))).toBe(false);
  });

  it("re-binds EVALKIT_HOME read-only over a writable path that contains it", () => {
    const evalkitHome = join(cwd, ".evalkit");
    mkdirSync(evalkitHome, { recursive: true });
    const order = mounts(
      buildSandboxArgv({
        bwrap: "bwrap",
        sandbox: { network: false, writable: [] },
        cwd,
        executables: [],
        home,
        evalkitHome,
      }),
    );
    expect(order.indexOf(`--ro-bind ${evalkitHome}`)).toBeGreaterThan(order.indexOf(`--bind ${cwd}`));
  });
});

describe("probeSandbox", () => {
  it("names what to install when bwrap is not on PATH", async () => {
    const probe = await probeSandbox({ PATH: join(root, "nothing-here") }, "linux");
    expect(probe).toEqual({ ok: false, reason: expect.stringContaining("apt-get install bubblewrap") });
  });

  it("says the sandbox needs Linux elsewhere", async () => {
    const probe = await probeSandbox({ PATH: "/usr/bin" }, "darwin");
    expect(probe).toEqual({ ok: false, reason: expect.stringContaining("needs Linux") });
  });
});
