// Argument parsing for `evalkit doctor` and `evalkit setup python`; the reports themselves live in doctor.ts.

import { parseArgs } from "node:util";
import { EvalkitError } from "../errors.js";
import { resolveJupyterOption } from "../tool/jupyter-options.js";
import { describeParseError, UsageError } from "./args.js";
import { runDoctor } from "./doctor.js";
import { JUPYTER_OPTIONS, readJupyterArgs } from "./jupyter-args.js";
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

/** `evalkit doctor [--python P] [--cwd D] [--json]` */
export async function runDoctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(argv, false);
  if (values.help) {
    io.stdout(
      "usage: evalkit doctor [--python PATH] [--cwd DIR] [--json] [--jupyter URL [--jupyter-token-file FILE]]\n",
    );
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
    io.stdout(
      "usage: evalkit setup python [--check] [--force] [--without-pip] [--python PATH] [--cwd DIR] [--json]\n",
    );
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
