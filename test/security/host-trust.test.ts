// The escape suite, through the host: what a sandboxed cell leaves behind is never run, followed or mounted outside.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import {
  ESCAPE_ROOT,
  type EscapeUser,
  evalkitBin,
  execSandboxed,
  listEscapeUsers,
  runAs,
  writeScript,
} from "../helpers/escape-users.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";

const { users, skipped } = listEscapeUsers();
for (const who of skipped) requireOrExplainSkip(`the host-trust escape suite as ${who}`, who);

beforeAll(() => {
  if (sandboxSkipReason === "") ensureBuilt();
}, 180_000);

afterAll(async () => {
  const { rmSync } = await import("node:fs");
  rmSync(ESCAPE_ROOT, { recursive: true, force: true });
});

const CLI = evalkitBin();

describe.skipIf(sandboxSkipReason !== "")(`escapes through the host ${sandboxSkipReason}`, () => {
  describe.each(users)("as $name", (user: EscapeUser) => {
    it("never runs on the host an interpreter a cell planted as <cwd>/.venv (the next sandboxed run searches past it)", async () => {
      const cwd = user.makeDir("planted-project");
      const home = user.makeDir("home");
      const markers = user.makeDir("planted-markers"); // outside the sandbox: only the host could write here
      const ran = path.join(markers, "ran-on-host");
      const plant = [
        "import os",
        "os.makedirs('.venv/bin', exist_ok=True)",
        "open('.venv/pyvenv.cfg', 'w').write('home = /usr/bin\\nversion = 3.11.2\\n')",
        `open('.venv/bin/python', 'w').write('#!/bin/sh\\ntouch ${ran}\\nexec /usr/bin/python3 "$@"\\n')`,
        "os.chmod('.venv/bin/python', 0o755)",
        "print('planted')",
      ].join("\n");
      // The search, not an explicit interpreter: what `exec --sandbox` does in a project without --python.
      const env = { EVALKIT_PYTHON: "" };
      const first = await execSandboxed(user, [plant], { cwd, home, env });
      expect(first.cells[0]?.text).toBe("planted\n");
      const second = await execSandboxed(user, ["import sys\nprint(sys.prefix)"], { cwd, home, env });
      expect(second.cells[0]?.status).toBe("ok");
      expect(second.cells[0]?.text).not.toContain(".venv");
      expect(existsSync(ran)).toBe(false);
    }, 90_000);

    it("refuses a cwd a cell swapped for a symlink (after its kernel died) instead of mounting the link's target", async () => {
      const parent = user.makeDir("swap-parent");
      const project = path.join(parent, "project");
      const target = path.join(user.makeDir("swap-target"), "private");
      for (const dir of [project, target]) {
        mkdirSync(dir, { recursive: true });
        user.own(dir);
      }
      writeFileSync(path.join(target, "private.txt"), "not for the cell");
      user.own(path.join(target, "private.txt"));
      const swap = [
        "import os, signal",
        `os.rename(${JSON.stringify(project)}, ${JSON.stringify(`${project}.moved`)})`,
        `os.symlink(${JSON.stringify(target)}, ${JSON.stringify(project)})`,
        "os.kill(os.getpid(), signal.SIGKILL)",
      ].join("\n");
      const script = writeScript(
        user,
        "swap",
        [
          `const tool = evalkit.createEvalTool({ cwd: ${JSON.stringify(project)}, python: "/usr/bin/python3", sandbox: { writable: [${JSON.stringify(parent)}] } });`,
          `const first = await tool.execute({ cells: [{ code: ${JSON.stringify(swap)} }] });`,
          "let second;",
          "try {",
          "  second = await tool.execute({ cells: [{ code: 'import os\\nprint(sorted(os.listdir(\".\")))' }] });",
          "} catch (err) {",
          "  second = { thrown: err.code, message: err.message };",
          "}",
          "await tool.dispose();",
          "console.log(JSON.stringify({ first: first.details.cells[0].status, second: second.details?.cells[0] ?? second }));",
        ].join("\n"),
      );
      const run = await runAs(user, [process.execPath, script], { cwd: parent, home: user.makeDir("home") });
      const result = JSON.parse(run.stdout || "{}");
      expect(result.first).toBe("died");
      const said = JSON.stringify(result.second);
      expect(said).not.toContain("private.txt");
      expect(said).toMatch(/changed since this sandboxed session started/);
    }, 90_000);

    it("refuses system areas as the cwd or a writable path, naming the field, before any kernel starts", async () => {
      const home = user.makeDir("home");
      for (const cwd of ["/proc", "/sys", "/dev", "/run", "/var", "/etc", "/boot", "/usr/lib"]) {
        if (!existsSync(cwd)) continue;
        const run = await runAs(user, [process.execPath, CLI, "exec", "--sandbox", "--cwd", cwd, "-c", "1"], {
          cwd: home,
          home,
        });
        expect(run.status, `${cwd}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(/cwd: ".*" (is|lies inside ".*", which is) a system area/);
      }
      const write = await runAs(
        user,
        [process.execPath, CLI, "exec", "--sandbox", "--sandbox-write", "/etc", "-c", "1"],
        { cwd: user.makeDir("write-project"), home },
      );
      expect(write.status).toBe(2);
      expect(write.stderr).toMatch(/sandbox\.writable\.0: "\/etc" is a system area/);
    }, 90_000);

    it("does not start `evalkit mcp --sandbox` in a system area: it exits 2 saying why", async () => {
      const home = user.makeDir("home");
      const run = await runAs(user, [process.execPath, CLI, "mcp", "--sandbox", "--cwd", "/proc"], {
        cwd: home,
        home,
        timeoutMs: 20_000,
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/evalkit mcp: cwd: "\/proc" is a system area.*\[INVALID_INPUT\]/);
    }, 30_000);
  });
});
