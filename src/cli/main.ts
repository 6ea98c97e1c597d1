// The `evalkit` command dispatcher: picks the subcommand and loads only the code it needs.

import * as z from "zod";
import { isEvalkitError } from "../errors.js";
import { packageVersion } from "../runtime/package-root.js";
import { formatUsageError } from "./args.js";
import { finishWithStdio, installStdioGuard, writeStderr, writeStdout } from "./stdio-guard.js";

const USAGE = `usage: evalkit <command> [options]

commands:
  exec [-c|--code CODE | FILE | NOTEBOOK.ipynb]...  run cells (or a notebook's code cells) in fresh kernels
      [--input FILE|-] [--lang py|js] [--timeout SEC] [--cwd DIR] [--python PATH] [--launcher PREFIX]
      [--runtime NAME=COMMAND] [--json] [--images DIR] [--output-notebook OUT.ipynb] [--allow-errors]
      [--jupyter URL] [--jupyter-token-file FILE]
      [--sandbox] [--sandbox-network] [--sandbox-write PATH] [--memory-mb N] [--cpu-seconds N] [--max-processes N]
      [--checkpoints] [--undo N]
  repl                                interactive session
      [--python PATH] [--cwd DIR] [--session NAME] [--launcher PREFIX] [--timeout SEC] [--js]
      [--jupyter URL] [--jupyter-token-file FILE]
      [--sandbox] [--sandbox-network] [--sandbox-write PATH] [--memory-mb N] [--cpu-seconds N] [--max-processes N]
      [--checkpoints] [--undo N]
  mcp                                 MCP server on stdio exposing the eval tool
      [--python PATH] [--cwd DIR] [--launcher PREFIX] [--jupyter URL] [--jupyter-token-file FILE]
      [--runtime NAME=COMMAND]
      [--sandbox] [--sandbox-network] [--sandbox-write PATH] [--memory-mb N] [--cpu-seconds N] [--max-processes N]
      [--checkpoints] [--undo N]
      [--http [HOST:]PORT [--root DIR] [--token-file FILE] [--allowed-host NAME] [--allowed-origin URL]
       [--session-ttl SEC] [--max-sessions N]]   Streamable HTTP at /mcp for many remote clients instead
  doctor                              which interpreter evalkit would use, and why
      [--python PATH] [--cwd DIR] [--json] [--jupyter URL] [--jupyter-token-file FILE]
  setup python                        create the managed venv (~/.evalkit/python-env)
      [--check] [--force] [--without-pip] [--python PATH] [--cwd DIR] [--json]
  artifact ID                         print a stored full output (ID or artifact://ID)
      [--offset N] [--limit N] [--dir DIR]

run "evalkit <command> --help" for what each option does.
`;

/** Standard output/error sinks, injectable for tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

installStdioGuard();

// The CLI owns its process, so it can make a process-wide choice a library must not: zod compiles each object
// schema into a generated function at its first parse, which pays off only after many parses. A one-shot
// `evalkit exec`, and an MCP server parsing a handful of the SDK's message kinds, lose ~3 ms to it at start.
z.config({ jitless: true });

const defaultIo: CliIo = { stdout: writeStdout, stderr: writeStderr };

/** Run the CLI with `argv` (without node and script); resolves to the process exit code. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  return finishWithStdio(await runCommand(argv, io));
}

async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "exec": {
        const { runExec } = await import("./exec.js");
        return await runExec(rest, { ...io, stdin: process.stdin });
      }
      case "artifact": {
        const { runArtifact } = await import("./artifact.js");
        return await runArtifact(rest, io);
      }
      case "doctor": {
        const { runDoctorCommand } = await import("./doctor-command.js");
        return await runDoctorCommand(rest, io);
      }
      case "setup": {
        const { runSetupCommand } = await import("./doctor-command.js");
        return await runSetupCommand(rest, io);
      }
      case "repl": {
        const { runRepl } = await import("./repl/repl.js");
        return await runRepl(rest);
      }
      case "mcp": {
        const { runMcp } = await import("./mcp.js");
        return await runMcp(rest);
      }
      case "--version":
      case "-V":
        io.stdout(`${packageVersion()}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        io.stderr(`evalkit: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    // Known failures get one clear line; only real bugs show a stack.
    if (isEvalkitError(err, "INVALID_INPUT") && command !== undefined) {
      // A bad flag of repl/doctor/setup: one line naming it and where the options are listed.
      io.stderr(formatUsageError(command, err.message.replace(new RegExp(`^${command}: `), "")));
      return 2;
    }
    if (isEvalkitError(err)) {
      io.stderr(`evalkit: ${err.message} [${err.code}]\n`);
      return err.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw err;
  }
}
