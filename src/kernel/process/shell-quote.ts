// POSIX shell quoting for launchers that hand the interpreter command to a remote shell (ssh).

import { basename } from "node:path";

/** Launchers whose trailing arguments are joined and re-parsed by a shell on the far side. */
export function shouldShellQuote(command: string): boolean {
  return basename(command) === "ssh";
}

/** One shell word per argument, single-quoted so the far shell passes each through untouched. */
export function quoteForShell(args: string[]): string {
  return args.map((arg) => `'${arg.replaceAll("'", `'"'"'`)}'`).join(" ");
}
