// Small argv helpers for the exec/artifact commands: node:util parseArgs with usage errors and numeric options.
import { type ParseArgsConfig, parseArgs } from "node:util";

/** Output sinks (and optional stdin) a command writes to; injectable for tests. */
export interface CommandIo {
  /** Standard output; bytes are written as they are (artifacts), strings as UTF-8. */
  stdout(text: string | Uint8Array): void;
  stderr(text: string): void;
  stdin?: NodeJS.ReadableStream;
}

/** A bad command line: printed as one line with the usage hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs in strict mode with tokens (so `-c` and FILE keep their order); parse failures become UsageError. */
export function parseCommandArgs<T extends Options>(
  argv: string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true; tokens: true }>
> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError(describeParseError(err));
  }
}

/**
 * parseArgs' failure in evalkit's words: `unknown option --bogus`, `--timeout needs a value`. Its own text
 * (advice about `-- "--bogus"`) is about the parser, not about evalkit's commands.
 */
export function describeParseError(err: unknown): string {
  const message = err instanceof Error ? err.message.replace(/^TypeError \[[A-Z_]+\]: /, "") : String(err);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (missing) return `${missing[2]} needs a value`;
  // `--images -c 1`: the option's value looks like an option; parseArgs calls that "ambiguous".
  const ambiguous = /^Option '(-\w, )?(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
  if (ambiguous) {
    return `${ambiguous[2]} needs a value (to pass one that starts with "-", write ${ambiguous[2]}=VALUE)`;
  }
  const positional = /^Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument ${JSON.stringify(positional[1])}`;
  return message;
}

/** The one line a usage error prints: what was wrong, and where the options are listed. */
export function formatUsageError(command: string, message: string): string {
  return `evalkit ${command}: ${message}; see evalkit ${command} --help\n`;
}

/** A number option: `undefined` when absent, UsageError naming the flag when not a (finite) number. */
export function readNumberOption(
  flag: string,
  value: string | boolean | undefined,
  { integer = false }: { integer?: boolean } = {},
): number | undefined {
  if (value === undefined || typeof value === "boolean") return undefined;
  const number = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(number) || (integer && !Number.isInteger(number))) {
    throw new UsageError(
      `${flag}: expected ${integer ? "an integer" : "a number"}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/** Reads a whole stream as UTF-8. */
export async function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  return (await readStreamBytes(stream)).toString("utf8");
}

/** Everything a stream yields, as bytes (for sources whose encoding is decided later). */
export async function readStreamBytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
