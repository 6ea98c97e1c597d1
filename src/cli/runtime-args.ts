// The `--runtime NAME=COMMAND` flag shared by `exec` and `mcp`: a protocol runner (docs/runtimes.md) whose
// language cells can name, from its command line alone.
import { defineRuntime, type RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import { splitCommandLine } from "../tool/launcher.js";
import { UsageError } from "./args.js";

/** parseArgs entries; spread into each command's options. */
export const RUNTIME_OPTIONS = { runtime: { type: "string", multiple: true } } as const;

/** The usage line, its description starting at `column`. */
export function runtimeUsage(column: number): string {
  const flag = "  --runtime NAME=COMMAND".padEnd(column - 1);
  return `${flag} another language: a protocol runner started by COMMAND (repeatable; docs/runtimes.md)\n`;
}

/** The runtimes the flags describe (none without the flag); a malformed flag is a usage error. */
export function readRuntimeArgs(values: { runtime?: string[] | undefined }): RuntimeSpec[] {
  return (values.runtime ?? []).map((flag) => {
    const at = flag.indexOf("=");
    const name = flag.slice(0, at).trim();
    const command = at === -1 ? [] : splitCommandLine(flag.slice(at + 1), "--runtime");
    if (at <= 0 || command.length === 0)
      throw new UsageError(
        `--runtime: expected NAME=COMMAND (e.g. perl="perl runner.pl"), got ${JSON.stringify(flag)}`,
      );
    return defineRuntime({ name, command });
  });
}
