// The `evalkit` command dispatcher: picks the subcommand and loads only the code it needs.

import { readFileSync } from "node:fs";
import { isEvalkitError } from "../errors.js";
import { finishWithStdio, installStdioGuard, writeStderr, writeStdout } from "./stdio-guard.js";

const USAGE = `usage: evalkit <command> [options]

commands:
  exec [options] [-c CODE | FILE | NOTEBOOK.ipynb]...   run cells (or a notebook's code cells) in fresh kernels
  repl [--python P] [--cwd D] [--session S] [--launcher CMD] [--timeout SEC] [--js]   interactive session
  mcp [--python P] [--cwd D]           MCP server on stdio exposing the eval tool
  doctor [--python P] [--cwd D] [--json]   which interpreter evalkit would use, and why
  setup python [--check]               create the managed venv (~/.evalkit/python-env)
  artifact ID [--offset N] [--limit N] print a stored full output

run "evalkit <command> --help" for a command's options.
`;

/** Standard output/error sinks, injectable for tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

installStdioGuard();

const defaultIo: CliIo = { stdout: writeStdout, stderr: writeStderr };

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

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
        const { runRepl } = await import("./repl.js");
        return await runRepl(rest);
      }
      case "mcp": {
        const { runMcp } = await import("./mcp.js");
        return await runMcp(rest);
      }
      case "--version":
      case "-V":
        io.stdout(`${readVersion()}\n`);
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
    if (isEvalkitError(err)) {
      io.stderr(`evalkit: ${err.message} [${err.code}]\n`);
      return err.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw err;
  }
}
