// `evalkit artifact ID`: print a stored full output (byte-exact), whole or a byte range of it.
import { isEvalkitError } from "../errors.js";
import { MAX_READ_LIMIT, readArtifact } from "../output/artifacts/artifact-read.js";
import { type CommandIo, formatUsageError, parseCommandArgs, readNumberOption, UsageError } from "./args.js";

export const ARTIFACT_USAGE = `usage: evalkit artifact ID [--offset N] [--limit N] [--dir DIR]

Prints a stored full output (ID or artifact://ID, as named in a truncation notice) exactly as it was saved.

  --offset N    start at byte N (negative: N bytes before the end; write it as --offset=-N)
  --limit N     print at most N bytes (default: everything from the offset)
  --dir DIR     artifact directory (default $EVALKIT_HOME/artifacts, EVALKIT_HOME defaulting to ~/.evalkit)
  -h, --help    this help

exit status: 0 printed, 1 no such artifact, 2 bad usage
`;

const OPTIONS = {
  offset: { type: "string" },
  limit: { type: "string" },
  dir: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Runs `evalkit artifact` with `argv` (after the subcommand); resolves to the exit status. */
export async function runArtifact(argv: string[], io: CommandIo): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      io.stdout(ARTIFACT_USAGE);
      return 0;
    }
    if (positionals.length !== 1) {
      throw new UsageError(positionals.length === 0 ? "missing artifact ID" : "give exactly one artifact ID");
    }
    const id = positionals[0]!;
    let offset = readNumberOption("--offset", values.offset, { integer: true }) ?? 0;
    const limit = readNumberOption("--limit", values.limit, { integer: true });
    if (limit !== undefined && limit < 0)
      throw new UsageError(`--limit: expected a count >= 0, got ${limit}`);
    if (limit === 0) return 0;
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    const dir = values.dir !== undefined ? { dir: values.dir } : {};
    // Pages of at most 16 MiB keep memory bounded whatever the artifact's size.
    for (;;) {
      const page = await readArtifact(id, { offset, limit: Math.min(remaining, MAX_READ_LIMIT), ...dir });
      if (page.bytes.length > 0) io.stdout(page.bytes);
      remaining -= page.bytes.length;
      if (page.nextOffset === null || remaining <= 0 || page.bytes.length === 0) return 0;
      offset = page.nextOffset;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(formatUsageError("artifact", err.message));
      return 2;
    }
    if (isEvalkitError(err)) {
      io.stderr(`evalkit artifact: ${err.message}\n`);
      return err.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw err;
  }
}
