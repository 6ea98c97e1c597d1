// The public way to describe a protocol runner (docs/runtimes.md): a name, a command line and what the runner
// can do, validated once; sessions and the eval tool then run its cells like Python's and JS's.
import * as z from "zod";
import { PARSE_ONCE } from "../../contracts/lazy-schema.js";
import { EvalkitError } from "../../errors.js";
import type { InterruptMode } from "../client/runtime-description.js";

/** Names evalkit runs itself; a runtime may not take them (nor their aliases). */
const RESERVED_NAMES = new Set(["py", "js", "python", "javascript"]);

/** How a protocol runner is started and what it can do (everything but `name` and `command` is optional). */
export interface RuntimeDefinition {
  /** The language name cells use, e.g. `"perl"` (lower case letters, digits, `_`, `-`, `+`). */
  name: string;
  /** Other names a cell may use for the language, e.g. `["pl"]`. */
  aliases?: string[];
  /** The runner's command line, program first: `["perl", "/path/runner.pl"]`. It speaks NDJSON on stdin/stdout. */
  command: string[];
  /** Environment entries added to the kernel's (filtered) environment. */
  env?: Record<string, string>;
  /** How a running cell is interrupted (default `"signal+frame"`: SIGINT to its process group and the frame). */
  interrupt?: InterruptMode;
  /** Milliseconds an interrupted cell gets before its kernel is killed (default 2000). */
  interruptGraceMs?: number;
  /** Deadline for the runner's `ready` frame (default 10 000 ms). */
  startTimeoutMs?: number;
  /** The runner echoes the execute frame's `nonce` on result, error and done (default true). */
  echoesNonce?: boolean;
  /** The runner answers `is_complete` (default false). */
  hasIsComplete?: boolean;
  /** One line for the eval tool's description, e.g. `"Perl 5; display(), completion() and input() are defined"`. */
  summary?: string;
}

/** A validated runtime definition (from {@link defineRuntime}); pass it in `runtimes` to a manager or tool. */
export interface RuntimeSpec {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly command: readonly [string, ...string[]];
  readonly env: Readonly<Record<string, string>>;
  readonly interrupt: InterruptMode;
  readonly interruptGraceMs: number;
  readonly startTimeoutMs: number;
  readonly echoesNonce: boolean;
  readonly hasIsComplete: boolean;
  readonly summary: string | undefined;
}

const NAME = /^[a-z][a-z0-9_+-]{0,31}$/;

const languageName = z
  .string()
  .regex(NAME, "expected a lower-case language name (letters, digits, _ + -), at most 32 characters")
  .refine((name) => !RESERVED_NAMES.has(name), {
    message: "py, js, python and javascript are evalkit's own",
  });

const definitionSchema = z.strictObject({
  name: languageName,
  aliases: z.array(languageName).optional(),
  command: z.array(z.string().min(1)).min(1, "expected the runner's program and its arguments"),
  env: z.record(z.string(), z.string()).optional(),
  interrupt: z.enum(["signal", "frame", "signal+frame"]).optional(),
  interruptGraceMs: z.number().int().nonnegative().optional(),
  startTimeoutMs: z.number().int().positive().optional(),
  echoesNonce: z.boolean().optional(),
  hasIsComplete: z.boolean().optional(),
  summary: z.string().max(500).optional(),
});

/** Validates a runtime definition; throws INVALID_INPUT naming the field (`runtime.command`...). */
export function defineRuntime(definition: RuntimeDefinition): RuntimeSpec {
  const parsed = definitionSchema.safeParse(definition, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ["runtime", ...(issue?.path ?? [])].join(".");
    throw new EvalkitError("INVALID_INPUT", `invalid ${field}: ${issue?.message}`, { field });
  }
  const value = parsed.data;
  const [program, ...args] = value.command;
  return Object.freeze({
    name: value.name,
    aliases: Object.freeze([...(value.aliases ?? [])]),
    command: Object.freeze([program as string, ...args]) as unknown as readonly [string, ...string[]],
    env: Object.freeze({ ...(value.env ?? {}) }),
    interrupt: value.interrupt ?? "signal+frame",
    interruptGraceMs: value.interruptGraceMs ?? 2000,
    startTimeoutMs: value.startTimeoutMs ?? 10_000,
    echoesNonce: value.echoesNonce ?? true,
    hasIsComplete: value.hasIsComplete ?? false,
    summary: value.summary,
  });
}

/** Checks a list of runtimes for one manager or tool: specs from defineRuntime, no name taken twice. */
export function checkRuntimes(
  runtimes: readonly RuntimeSpec[] | undefined,
  field = "runtimes",
): RuntimeSpec[] {
  if (runtimes === undefined) return [];
  if (!Array.isArray(runtimes))
    throw new EvalkitError("INVALID_INPUT", `${field} must be an array of defineRuntime() results`, {
      field,
    });
  const seen = new Set<string>();
  return runtimes.map((runtime, index) => {
    // A plain object (not from defineRuntime) is validated here too, so every entry point checks the same way.
    const spec = Object.isFrozen(runtime) ? runtime : defineRuntime(runtime as unknown as RuntimeDefinition);
    for (const name of [spec.name, ...spec.aliases]) {
      if (seen.has(name))
        throw new EvalkitError(
          "INVALID_INPUT",
          `${field}[${index}]: the language name "${name}" is taken twice`,
          {
            field: `${field}[${index}].name`,
          },
        );
      seen.add(name);
    }
    return spec;
  });
}

/** The runtime a cell's language names (by name or alias), if any. */
export function findRuntime(runtimes: readonly RuntimeSpec[], language: string): RuntimeSpec | undefined {
  return runtimes.find((runtime) => runtime.name === language || runtime.aliases.includes(language));
}
