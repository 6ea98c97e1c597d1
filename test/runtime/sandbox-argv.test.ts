// The bwrap command line: what is shown, writable, hidden and unshared, in an order where later mounts win.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { buildSandboxArgv, installPrefixes, SECCOMP_FD } from "../../src/runtime/sandbox-argv.js";
import { findSystemArea } from "../../src/runtime/sandbox-guard.js";
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

describe("buildSandboxArgv refuses layouts that would undo the sandbox", () => {
  const home = join(root, "home-guard");
  const project = join(home, "project");
  mkdirSync(project, { recursive: true });
  const refusal = (cwd: string, writable: string[] = []) => {
    try {
      buildSandboxArgv({ bwrap: "bwrap", sandbox: { network: false, writable }, cwd, executables: [], home });
      return undefined;
    } catch (err) {
      return isEvalkitError(err, "INVALID_INPUT") ? { field: err.details.field, message: err.message } : err;
    }
  };

  it("refuses a cwd of /, of the home itself or of a directory holding it, naming the cwd field", () => {
    expect(refusal("/")).toMatchObject({ field: "cwd", message: expect.stringContaining("--cwd DIR") });
    expect(refusal(home)).toMatchObject({ field: "cwd", message: expect.stringContaining("is the home") });
    expect(refusal(root)).toMatchObject({
      field: "cwd",
      message: expect.stringContaining("contains the home"),
    });
    expect(refusal(project)).toBeUndefined();
  });

  it("refuses the host's shared /tmp as the cwd but not a directory inside it", () => {
    expect(refusal("/tmp")).toMatchObject({ field: "cwd", message: expect.stringContaining("sockets") });
    expect(refusal(project)).toBeUndefined();
  });

  it("refuses system areas and what lies inside them as the cwd or a writable path, naming the field", () => {
    for (const area of [
      "/proc",
      "/sys",
      "/dev",
      "/run",
      "/var",
      "/etc",
      "/usr",
      "/var/tmp",
      "/dev/shm",
      "/home",
    ]) {
      expect(refusal(area), area).toMatchObject({
        field: "cwd",
        message: expect.stringContaining("system area"),
      });
    }
    expect(refusal("/var/lib/project")).toMatchObject({
      message: expect.stringContaining('lies inside "/var"'),
    });
    expect(refusal(project, [root, "/etc"])).toMatchObject({ field: "sandbox.writable.1" });
    // Shared parents are refused themselves only: a project below them is a project.
    expect(refusal("/opt")).toMatchObject({ field: "cwd" });
    expect(findSystemArea("/opt/project")).toBeUndefined();
  });

  it("refuses a writable / naming its index, and allows other asked-for paths", () => {
    expect(refusal(project, [root, "/"])).toMatchObject({ field: "sandbox.writable.1" });
    expect(refusal(project, [root])).toBeUndefined();
  });
});

describe("buildSandboxArgv's layers", () => {
  const cwd = join(root, "layers");
  mkdirSync(cwd, { recursive: true });
  const build = (extra: { hasSeccompFd?: boolean; cgroupProcs?: string[] } = {}) =>
    buildSandboxArgv({
      bwrap: "bwrap",
      sandbox: { network: false, writable: [] },
      cwd,
      executables: [],
      ...extra,
    });

  it("makes a user namespace and covers /proc/sys read-only in every sandbox", () => {
    const argv = build().join(" ");
    expect(argv).toContain("--unshare-user");
    expect(argv).toContain("--ro-bind-try /proc/sys /proc/sys");
    expect(argv.indexOf("--ro-bind-try /proc/sys")).toBeGreaterThan(argv.indexOf("--proc /proc"));
  });

  it("reads the seccomp program from descriptor 9 and starts bwrap directly when no cgroup is joined", () => {
    const argv = build({ hasSeccompFd: true });
    expect(argv[0]).toBe("bwrap");
    expect(argv.join(" ")).toContain(`--seccomp ${SECCOMP_FD}`);
  });

  it("joins the kernel's cgroups through a shell that then becomes bwrap", () => {
    const argv = build({ cgroupProcs: ["/cg/memory/evalkit-1-1/cgroup.procs"] });
    expect(argv.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(argv.slice(3, 7)).toEqual([
      "evalkit-sandbox",
      "1",
      "/cg/memory/evalkit-1-1/cgroup.procs",
      "bwrap",
    ]);
  });
});

describe("buildSandboxArgv shows interpreters without showing the home", () => {
  const home = join(root, "home-python");
  const cwd = join(root, "elsewhere");
  mkdirSync(cwd, { recursive: true });

  it("recreates a symlinked interpreter under ~/.local/bin as a link instead of showing ~/.local", () => {
    const bin = join(home, ".local", "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync("/usr/bin/env", join(bin, "python3"));
    const argv = buildSandboxArgv({
      bwrap: "bwrap",
      sandbox: { network: false, writable: [] },
      cwd,
      executables: [join(bin, "python3")],
      home,
    });
    expect(mounts(argv).some((m) => m.includes(join(home, ".local")))).toBe(false);
    const link = argv.indexOf("--symlink", argv.indexOf(`--tmpfs`));
    expect(argv.slice(link, link + 3)).toEqual([
      "--symlink",
      realpathSync("/usr/bin/env"),
      join(bin, "python3"),
    ]);
  });

  it("binds the directory of an interpreter installed straight into the home, never the home", () => {
    mkdirSync(join(home, "bin"), { recursive: true });
    writeFileSync(join(home, "bin", "python3"), "");
    const order = mounts(
      buildSandboxArgv({
        bwrap: "bwrap",
        sandbox: { network: false, writable: [] },
        cwd,
        executables: [join(home, "bin", "python3")],
        home,
      }),
    );
    expect(order).toContain(`--ro-bind ${join(home, "bin")}`);
    expect(order).not.toContain(`--ro-bind ${home}`);
  });
});

describe("buildSandboxArgv under a memory limit", () => {
  it("caps every private tmpfs at the given size", () => {
    const cwd = join(root, "sized");
    mkdirSync(cwd, { recursive: true });
    const argv = buildSandboxArgv({
      bwrap: "bwrap",
      sandbox: { network: false, writable: [] },
      cwd,
      executables: [],
      home: join(root, "sized-home"),
      tmpfsBytes: 200 * 1024 * 1024,
    });
    const tmpfs = argv.flatMap((arg, i) => (arg === "--tmpfs" ? [argv.slice(i - 2, i + 2).join(" ")] : []));
    expect(tmpfs).toEqual(
      ["/dev/shm", "/tmp", "/var/tmp", join(root, "sized-home")].map((t) => `--size 209715200 --tmpfs ${t}`),
    );
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
