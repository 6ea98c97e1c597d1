// What the `evalkit` command says when asked for help or given something wrong: evalkit's words, one line each.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.js";
import { findPyenvRoot } from "../helpers/interpreters.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const home = mkdtempSync(path.join(os.tmpdir(), "evalkit-cli-messages-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function evalkit(args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, "bin", "evalkit.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, EVALKIT_HOME: home },
    timeout: 120_000,
  });
}

/** A CPython older than 3.8 from the machine image, if any (pyenv has 3.7 and 3.6 here). */
function findOldPython(): string | undefined {
  const root = findPyenvRoot();
  if (!root) return undefined;
  for (const version of ["3.7.16", "3.6.15"]) {
    const binary = path.join(root, "versions", version, "bin", "python3");
    if (existsSync(binary)) return binary;
  }
  return undefined;
}
const OLD_PYTHON = findOldPython();
const PYTHON2 = ((root) => {
  const binary = root ? path.join(root, "versions", "2.7.18", "bin", "python2") : undefined;
  return binary && existsSync(binary) ? binary : undefined;
})(findPyenvRoot());

const SUBCOMMANDS = [["exec"], ["repl"], ["mcp"], ["doctor"], ["setup", "python"], ["artifact"]];

describe("evalkit command messages", () => {
  beforeAll(ensureBuilt, 150_000);

  it("lists every subcommand's flags in the top-level --help, mcp --launcher included", () => {
    const top = evalkit(["--help"]);
    expect(top.status).toBe(0);
    expect(top.stdout).toContain("mcp ");
    for (const command of SUBCOMMANDS) {
      const help = evalkit([...command, "--help"]);
      expect(help.status, command.join(" ")).toBe(0);
      const flags = new Set(help.stdout.match(/--[a-z][a-z-]*/g) ?? []);
      flags.delete("--help");
      expect(flags.size, command.join(" ")).toBeGreaterThan(0);
      // The flag must appear in the command's own block: from its name to the next command's name.
      const start = top.stdout.indexOf(`\n  ${command.join(" ")} `);
      expect(start, command.join(" ")).toBeGreaterThan(0);
      const next = top.stdout.slice(start + 3).search(/\n {2}[a-z]/);
      const block = top.stdout.slice(start, next < 0 ? undefined : start + 3 + next);
      for (const flag of flags) expect(block, `${command.join(" ")} ${flag}`).toContain(flag);
    }
    expect(top.stdout).toMatch(/\n {2}mcp .*\n.*--launcher PREFIX/);
  });

  it("answers an unknown flag in evalkit's words, naming the command's help", () => {
    for (const command of SUBCOMMANDS) {
      const run = evalkit([...command, "--bogus"]);
      const name = command[0]!;
      expect(run.status, command.join(" ")).toBe(2);
      expect(run.stderr, command.join(" ")).toBe(
        `evalkit ${name}: unknown option --bogus; see evalkit ${name} --help\n`,
      );
    }
  });

  it.skipIf(OLD_PYTHON === undefined)(
    "says why an old --python is rejected: its version and the minimum",
    () => {
      for (const command of [["exec", "-c", "1"], ["doctor"]]) {
        const run = evalkit([...command, "--python", OLD_PYTHON!]);
        expect(run.status, command.join(" ")).toBe(1);
        expect(`${run.stdout}${run.stderr}`, command.join(" ")).toMatch(
          /is Python 3\.[67]\.\d+, too old: evalkit needs 3\.8 or newer/,
        );
      }
      const exec = evalkit(["exec", "-c", "1", "--python", OLD_PYTHON!]);
      expect(exec.stderr.trimEnd().split("\n")).toHaveLength(1);
    },
  );

  it.skipIf(PYTHON2 === undefined)(
    `names Python 2 as too old with its version, not with Python's usage text${PYTHON2 === undefined ? " [skipped: no pyenv Python 2.7.18 here]" : ""}`,
    () => {
      for (const command of [["exec", "-c", "1"], ["doctor"]]) {
        const run = evalkit([...command, "--python", PYTHON2!]);
        expect(run.status, command.join(" ")).toBe(1);
        const said = `${run.stdout}${run.stderr}`;
        expect(said, command.join(" ")).toMatch(/is Python 2\.7\.\d+, too old: evalkit needs 3\.8 or newer/);
        expect(said, command.join(" ")).not.toContain("usage:");
      }
    },
  );

  it("explains every flag in each command's --help, one described line per flag", () => {
    const top = evalkit(["--help"]).stdout;
    for (const command of SUBCOMMANDS) {
      const help = evalkit([...command, "--help"]).stdout;
      const lines = help.split("\n");
      // Every flag the top-level help lists for the command, and every flag in the command's usage lines.
      const start = top.indexOf(`\n  ${command.join(" ")} `);
      const next = top.slice(start + 3).search(/\n {2}[a-z]/);
      const block = top.slice(start, next < 0 ? undefined : start + 3 + next);
      const usage = lines.filter((line) => /^\s*(usage: )?evalkit /.test(line)).join(" ");
      const flags = new Set(`${block} ${usage}`.match(/--[a-z][a-z-]*/g) ?? []);
      flags.delete("--help");
      expect(flags.size, command.join(" ")).toBeGreaterThan(0);
      for (const flag of flags) {
        const at = lines.findIndex((line) => new RegExp(`^\\s+(-\\w, )?${flag}(\\s|=|$)`).test(line));
        expect(at, `${command.join(" ")} ${flag}`).toBeGreaterThan(0);
        // The explanation: words after the flag (and its value) on its line, or on the next, indented line.
        const rest = (lines[at] ?? "").replace(new RegExp(`^\\s+(-\\w, )?${flag}(\\s[A-Z][A-Z.|-]*)?`), "");
        const explanation = rest.trim() !== "" ? rest : (lines[at + 1] ?? "");
        expect(explanation.trim().split(/\s+/).length, `${command.join(" ")} ${flag}`).toBeGreaterThan(2);
      }
    }
  });

  it("prints JSON for setup python --json, on success and on failure", () => {
    const created = evalkit(["setup", "python", "--json", "--without-pip"]);
    expect(created.status, created.stderr).toBe(0);
    const report = JSON.parse(created.stdout);
    expect(report).toMatchObject({
      ok: true,
      created: true,
      venv: path.join(home, "python-env"),
      pip: false,
    });
    expect(report.version).toMatch(/^3\.\d+\.\d+/);
    const again = JSON.parse(evalkit(["setup", "python", "--json"]).stdout);
    expect(again).toMatchObject({ ok: true, created: false });
    const failed = evalkit(["setup", "python", "--json", "--force", "--python", "/no/such/python3"]);
    expect(failed.status).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, code: "PYTHON_NOT_FOUND" });
  });
});
