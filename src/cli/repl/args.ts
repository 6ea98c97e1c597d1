// Command line of `evalkit repl`: flags, validation and the usage text.
import { parseArgs } from "node:util";
import { EvalkitError } from "../../errors.js";
import type { JupyterSettings } from "../../kernel/jupyter/jupyter-rest.js";
import { checkSandboxLayout } from "../../runtime/sandbox-argv.js";
import type { ResolvedSandbox, ResourceLimits, SandboxSetting } from "../../runtime/sandbox-types.js";
import { clampTimeoutSec } from "../../session/cell-timing.js";
import type { CheckpointOptions } from "../../session/checkpoint-book.js";
import { resolveJupyterOption } from "../../tool/jupyter-options.js";
import { splitCommandLine } from "../../tool/launcher.js";
import { resolveSandbox } from "../../tool/tool-options.js";
import { describeParseError, readNumberOption, UsageError } from "../args.js";
import { JUPYTER_OPTIONS, jupyterUsage, readJupyterArgs } from "../jupyter-args.js";
import { readSandboxArgs, SANDBOX_OPTIONS, sandboxUsage } from "../sandbox-args.js";

export const REPL_USAGE = `usage: evalkit repl [options]

An interactive Python (and JavaScript) session on evalkit's kernel.

options:
  --python PATH       interpreter to run (default: the usual resolution, see "evalkit doctor")
  --cwd DIR           working directory of the kernel (default: the current directory)
  --session NAME      keep a separate input history for NAME ($EVALKIT_HOME/history-NAME)
  --launcher CMD      run the interpreter through a command prefix, e.g. "docker exec -i box"
  --timeout SECONDS   interrupt cells that run longer than this (default: no limit; at least 1)
${sandboxUsage(22)}${jupyterUsage(22)}  --js                start in JavaScript mode
  -h, --help          show this help

inside the REPL: :help lists the commands; Ctrl-C interrupts, Ctrl-D exits.
`;

/** The longest wait a Node timer holds (2^31-1 ms, about 24.8 days); a longer one would fire at once. */
export const LONGEST_TIMER_MS = 2_147_483_647;

/**
 * A REPL cell's ceiling, and its default without --timeout: "no limit" is the longest window the session's
 * watchdog can time (about 24.8 days).
 */
export const REPL_MAX_TIMEOUT_SEC = Math.floor(LONGEST_TIMER_MS / 1000);

/** What `evalkit repl` was asked to do. */
export interface ReplArgs {
  python?: string;
  cwd?: string;
  session?: string;
  launcher?: string[];
  timeoutSec?: number;
  sandbox?: SandboxSetting;
  limits?: ResourceLimits;
  checkpoints?: CheckpointOptions;
  /** --jupyter / EVALKIT_JUPYTER_URL: Python and the server's other languages run there. */
  jupyter?: JupyterSettings;
  startInJs: boolean;
  isHelp: boolean;
}

const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Parses `argv` (the words after `repl`); a bad flag is INVALID_INPUT naming it (exit status 2). */
export function parseReplArgs(argv: string[]): ReplArgs {
  let values: Record<string, string | boolean | undefined> & { "sandbox-write"?: string[] };
  try {
    values = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        python: { type: "string" },
        cwd: { type: "string" },
        session: { type: "string" },
        launcher: { type: "string" },
        timeout: { type: "string" },
        js: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        ...SANDBOX_OPTIONS,
        ...JUPYTER_OPTIONS,
      },
    }).values as typeof values;
  } catch (err) {
    throw new EvalkitError("INVALID_INPUT", `repl: ${describeParseError(err)}`);
  }
  const args: ReplArgs = { startInJs: values.js === true, isHelp: values.help === true };
  if (typeof values.python === "string") args.python = requireNonEmpty("--python", values.python);
  if (typeof values.cwd === "string") args.cwd = requireNonEmpty("--cwd", values.cwd);
  if (typeof values.session === "string") {
    if (!SESSION_NAME.test(values.session))
      throw new EvalkitError(
        "INVALID_INPUT",
        "repl: --session must be 1-64 letters, digits, '.', '_' or '-'",
        { field: "session" },
      );
    args.session = values.session;
  }
  if (typeof values.launcher === "string") {
    const words = splitCommandLine(values.launcher, "launcher");
    if (words.length > 0) args.launcher = words;
  }
  try {
    // exec's rule: any number, clamped to 1..the ceiling (the REPL's is the longest a timer can wait).
    const timeout = readNumberOption("--timeout", values.timeout);
    if (timeout !== undefined) args.timeoutSec = clampTimeoutSec(timeout, REPL_MAX_TIMEOUT_SEC);
    Object.assign(args, readSandboxArgs(values as Parameters<typeof readSandboxArgs>[0]));
    const jupyter = resolveJupyterOption(
      readJupyterArgs(values as Parameters<typeof readJupyterArgs>[0]),
      process.env,
    );
    if (jupyter) args.jupyter = jupyter;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new EvalkitError("INVALID_INPUT", `repl: ${err.message}`, { field: err.message.split(":")[0] });
  }
  return args;
}

function requireNonEmpty(flag: string, value: string): string {
  if (value.trim() === "")
    throw new EvalkitError("INVALID_INPUT", `repl: ${flag} must not be empty`, { field: flag.slice(2) });
  return value;
}

/** The REPL kernels' sandbox (flags or EVALKIT_SANDBOX=1) and limits; a launcher cannot be sandboxed. */
export function replSandbox(
  args: ReplArgs,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): { sandbox?: ResolvedSandbox; limits?: ResourceLimits } {
  const sandbox = resolveSandbox(args.sandbox, env, cwd);
  if (sandbox && args.launcher) {
    throw new EvalkitError("INVALID_INPUT", "repl: --sandbox cannot be combined with --launcher", {
      field: "sandbox",
    });
  }
  // A cwd that would undo the sandbox (`/`, the home) stops the REPL at start, not at its first cell.
  if (sandbox) checkSandboxLayout({ sandbox, cwd, home: env.HOME });
  return { ...(sandbox ? { sandbox } : {}), ...(args.limits ? { limits: args.limits } : {}) };
}
