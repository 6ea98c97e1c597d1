// `evalkit setup python`: create the managed venv ($EVALKIT_HOME/python-env) from the best interpreter found.
import { spawn } from "node:child_process";
import { isEvalkitError } from "../errors.js";
import { makeDirectory } from "../output/artifacts/make-directory.js";
import { filterEnv } from "../runtime/env-filter.js";
import { resolveEvalkitHome } from "../runtime/evalkit-home.js";
import { binDirOfPrefix, findInterpreterInPrefix, isDirectory } from "../runtime/find-executable.js";
import { managedVenvPath } from "../runtime/python-candidates.js";
import type { ResolvedPython } from "../runtime/python-types.js";
import { resolvePython } from "../runtime/resolve-python.js";
import { type CommandIo, runDoctor } from "./doctor.js";

/** Arguments of `evalkit setup python`. */
export interface SetupPythonArgs {
  /** Only report (the same report as `evalkit doctor`); create nothing. */
  check?: boolean;
  /** Base interpreter for the venv; default: the best interpreter the search finds (the managed venv excluded). */
  python?: string;
  cwd?: string;
  /** Recreate the venv even when a working one exists (`venv --clear`). */
  force?: boolean;
  /** Create the venv without pip (faster; for interpreters without ensurepip). */
  withoutPip?: boolean;
  json?: boolean;
}

/** What `setup python --json` prints: the venv, and either the interpreter in it or why it failed. */
type SetupReport =
  | { ok: true; venv: string; python: string; version: string; created: boolean; pip?: boolean }
  | { ok: false; venv: string; error: string; code?: string };

const VENV_TIMEOUT_MS = 10 * 60 * 1000;

function runVenv(python: string, args: string[], env: Record<string, string>, cwd: string) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(python, ["-m", "venv", ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-8192);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), VENV_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}${err.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function findWorkingVenv(venv: string, env: NodeJS.ProcessEnv, cwd: string | undefined) {
  const interpreter = findInterpreterInPrefix(venv);
  if (interpreter === undefined) return undefined;
  try {
    return await resolvePython({ python: interpreter, env, ...(cwd ? { cwd } : {}), skipCheck: false });
  } catch {
    return undefined;
  }
}

/**
 * Runs `evalkit setup python`: creates `$EVALKIT_HOME/python-env` with `<interpreter> -m venv`, or with `check`
 * prints the doctor report. Returns the exit code: 0 on success, 1 on failure.
 */
export async function runSetupPython(
  args: SetupPythonArgs,
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (args.check) {
    return runDoctor(
      {
        ...(args.python ? { python: args.python } : {}),
        ...(args.cwd ? { cwd: args.cwd } : {}),
        json: args.json ?? false,
      },
      io,
      env,
    );
  }
  const target = managedVenvPath(resolveEvalkitHome(env));
  const cwd = args.cwd ?? process.cwd();
  // With --json, stdout carries one JSON object at the end; the text lines are left out.
  const say = (text: string) => {
    if (!args.json) io.stdout(text);
  };
  const finish = (report: SetupReport): number => {
    if (args.json) io.stdout(`${JSON.stringify(report)}\n`);
    else if (!report.ok) io.stderr(`evalkit setup python: ${report.error}\n`);
    return report.ok ? 0 : 1;
  };
  if (!args.force && isDirectory(target)) {
    const existing = await findWorkingVenv(target, env, args.cwd);
    if (existing) {
      say(
        `The managed venv already exists at ${target} (Python ${existing.version}); use --force to recreate it.\n`,
      );
      return finish({
        ok: true,
        venv: target,
        python: existing.executable,
        version: existing.version,
        created: false,
      });
    }
  }
  let base: ResolvedPython;
  try {
    base = await resolvePython({
      env,
      cwd,
      skipCheck: false,
      excludeSources: ["managed-venv"],
      ...(args.python ? { python: args.python } : {}),
    });
  } catch (err) {
    if (!isEvalkitError(err)) throw err;
    return finish({ ok: false, venv: target, error: err.message, code: err.code });
  }
  makeDirectory(resolveEvalkitHome(env));
  say(`Creating ${target} with ${base.executable} (Python ${base.version})...\n`);
  const childEnv = filterEnv(env);
  const flags = [...(args.force ? ["--clear"] : []), ...(args.withoutPip ? ["--without-pip"] : [])];
  let result = await runVenv(base.executable, [...flags, target], childEnv, cwd);
  let pipMissing = args.withoutPip ?? false;
  if (result.code !== 0 && !args.withoutPip && /ensurepip/.test(result.output)) {
    // Debian's python3 without python3-venv has no ensurepip: a venv without pip still runs evalkit.
    if (!args.json)
      io.stderr("ensurepip is not available for this interpreter; creating the venv without pip.\n");
    pipMissing = true;
    result = await runVenv(base.executable, ["--clear", "--without-pip", target], childEnv, cwd);
  }
  if (result.code !== 0) {
    return finish({
      ok: false,
      venv: target,
      error: `\`${base.executable} -m venv ${target}\` failed (exit ${result.code}):\n${result.output}`,
    });
  }
  const created = await findWorkingVenv(target, env, args.cwd);
  if (!created) {
    return finish({
      ok: false,
      venv: target,
      error: `${target} was created but its interpreter does not run.`,
    });
  }
  const bin = binDirOfPrefix(target);
  say(`Created the managed venv at ${target} (Python ${created.version}).\n`);
  say("evalkit uses it when no VIRTUAL_ENV, CONDA_PREFIX or ./.venv / ./venv takes precedence.\n");
  if (pipMissing)
    say(`It has no pip; install packages into it with another pip's --target, or recreate it with pip.\n`);
  else say(`Install packages into it with: ${bin}/python -m pip install <package>\n`);
  return finish({
    ok: true,
    venv: target,
    python: created.executable,
    version: created.version,
    created: true,
    pip: !pipMissing,
  });
}
