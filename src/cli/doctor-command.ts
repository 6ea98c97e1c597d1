// Argument parsing for `evalkit doctor` and `evalkit setup python`; the reports themselves live in doctor.ts.

import { parseArgs } from "node:util";
import { EvalkitError } from "../errors.js";
import { resolveJupyterOption } from "../tool/jupyter-options.js";
import { describeParseError, UsageError } from "./args.js";
import { runDoctor } from "./doctor.js";
import { JUPYTER_OPTIONS, jupyterUsage, readJupyterArgs } from "./jupyter-args.js";
import type { CliIo } from "./main.js";
import { runSetupPython } from "./setup-python.js";

function parse(argv: string[], allowPositionals: boolean) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals,
      options: {
        python: { type: "string" },
        cwd: { type: "string" },
        json: { type: "boolean" },
        check: { type: "boolean" },
        force: { type: "boolean" },
        "without-pip": { type: "boolean" },
        help: { type: "boolean", short: "h" },
        ...JUPYTER_OPTIONS,
      },
    });
  } catch (err) {
    throw new EvalkitError("INVALID_INPUT", describeParseError(err));
  }
}

const DOCTOR_HELP = `usage: evalkit doctor [--python PATH] [--cwd DIR] [--json] [--jupyter URL [--jupyter-token-file FILE]]

Says which Python interpreter evalkit would use and why (every candidate tried, and why each rejected one
was), whether the sandbox works here, and which Python the JavaScript kernels' subreaper parent uses.

  --python PATH   check this interpreter instead of searching (as exec --python would use it)
  --cwd DIR       search as a kernel started in DIR would (its ./.venv or ./venv; default: here)
  --json          print the report as one JSON object
${jupyterUsage(17)}  -h, --help      this help

With --jupyter, doctor also lists the languages the server's kernelspecs offer.
exit status: 0 an interpreter works (with --jupyter: the server answers), 1 none does, 2 bad usage
`;

const SETUP_HELP = `usage: evalkit setup python [--check] [--force] [--without-pip] [--python PATH] [--cwd DIR] [--json]

Creates evalkit's managed venv ($EVALKIT_HOME/python-env, EVALKIT_HOME defaulting to ~/.evalkit) with
"<interpreter> -m venv"; evalkit uses it when no active venv, conda env or ./.venv / ./venv comes first.
An existing working venv is left as it is.

  --check         only print the doctor report; create nothing
  --force         recreate the venv even when a working one exists
  --without-pip   create the venv without pip (faster; for interpreters without ensurepip)
  --python PATH   base interpreter of the venv (default: the best one the search finds)
  --cwd DIR       search for the base interpreter as from DIR (default: here)
  --json          print one JSON object: {"ok", "venv", "python", "version", "created", "pip"}
                  or {"ok": false, "error", "code"}
  -h, --help      this help

exit status: 0 the venv works, 1 it could not be made, 2 bad usage
`;

/** `evalkit doctor [--python P] [--cwd D] [--json]` */
export async function runDoctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(argv, false);
  if (values.help) {
    io.stdout(DOCTOR_HELP);
    return 0;
  }
  let jupyter: ReturnType<typeof resolveJupyterOption>;
  try {
    jupyter = resolveJupyterOption(readJupyterArgs(values), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new EvalkitError("INVALID_INPUT", err.message);
  }
  return runDoctor(
    { python: values.python, cwd: values.cwd, json: values.json, ...(jupyter ? { jupyter } : {}) },
    io,
    process.env,
  );
}

/** `evalkit setup python [--check] [--python P] [--cwd D]` */
export async function runSetupCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv, true);
  if (values.help || positionals[0] !== "python") {
    io.stdout(SETUP_HELP);
    return values.help ? 0 : 2;
  }
  return runSetupPython(
    {
      check: values.check,
      python: values.python,
      cwd: values.cwd,
      json: values.json,
      force: values.force,
      withoutPip: values["without-pip"],
    },
    io,
    process.env,
  );
}
