// Options of createEvalTool: their shape, zod validation naming the option, and the EVALKIT_PY/EVALKIT_JS flags.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "zod";
import type { CellLanguage } from "../contracts/cell-result.js";
import { lazySchema, PARSE_ONCE } from "../contracts/lazy-schema.js";
import { EvalkitError } from "../errors.js";
import type { JupyterSettings } from "../kernel/jupyter/jupyter-rest.js";
import { checkRuntimes, type RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import { resolveSandboxSetting } from "../runtime/sandbox-setting.js";
import type { ResolvedSandbox, ResourceLimits, SandboxSetting } from "../runtime/sandbox-types.js";
import type { HostBridgeHandlers } from "../session/bridge-handlers.js";
import { clampTimeoutSec } from "../session/cell-timing.js";
import type { CheckpointOptions } from "../session/checkpoint-book.js";
import type { SessionManager } from "../session/session-manager.js";
import type { KernelFactory, KernelMode } from "../session/session-types.js";
import { settingsSchemas } from "../session/settings-schema.js";
import { firstIssueField, formatZodIssues } from "./format-issues.js";
import { DEFAULT_MAX_TIMEOUT_SEC } from "./input-schema.js";
import { type JupyterOption, resolveJupyterOption } from "./jupyter-options.js";
import { splitCommandLine } from "./launcher.js";

/** Limits of what a model reads per cell. */
export interface EvalOutputOptions {
  /** Bytes kept from the start of a cell's text (default 20 KiB). */
  headBytes?: number;
  /** Bytes kept from the end of a cell's text (default 50 KiB). */
  tailBytes?: number;
  /** Longest line shown (default 4000 characters). */
  maxLineChars?: number;
  /** Keep ANSI escape sequences in the text (default false). */
  keepAnsi?: boolean;
  /** Images larger than this (decoded bytes) are noted, not sent (default 5 MB). */
  maxImageBytes?: number;
  /** Images sent per cell; later ones are noted, not sent (default 10; 0 sends text only). */
  maxImages?: number;
  /** Characters of application/json shown in text (default 8000). */
  jsonTextLimit?: number;
  /** Stream characters kept per cell in `details.cells[i].outputs` (default 1 MiB); the artifact has the rest. */
  retainStreamChars?: number;
}

/** Options of {@link createEvalTool}. Every option is optional: `createEvalTool({})` works. */
export interface EvalToolOptions {
  /** Python interpreter (path or command); default: EVALKIT_PYTHON, venvs, managed venv, PATH. */
  python?: string;
  /** Working directory of the kernels (default `process.cwd()` when the tool is created). */
  cwd?: string;
  /** Calls with the same session id (and cwd, interpreter) share kernels in session mode. Default `"default"`. */
  sessionId?: string;
  /** `session` (default): state persists across calls; `per-call`: fresh kernels for every call. */
  mode?: KernelMode;
  /** Expose the Python backend (default true; EVALKIT_PY overrides when set). */
  py?: boolean;
  /** Expose the JavaScript backend (default true; EVALKIT_JS overrides when set). */
  js?: boolean;
  /** Ceiling for cell timeouts in seconds (default 3600). */
  maxTimeout?: number;
  /** Timeout of a cell that sets none, in seconds (default 30). */
  defaultTimeout?: number;
  /** Host functions cells can call: `agent()`, `completion()`, `tool.<name>()`. */
  handlers?: HostBridgeHandlers;
  /** Where full outputs are stored (default `$EVALKIT_HOME/artifacts`). */
  artifactsDir?: string;
  /** Limits of the model's view. */
  output?: EvalOutputOptions;
  /** Extra environment variables for the kernels (set on top of the filtered host environment). */
  env?: Record<string, string>;
  /** Command prefix the interpreter runs through: `"docker exec -i box"` or `["ssh", "host"]`. */
  launcher?: string | string[];
  /** Grace between an interrupt and killing the kernel, in ms (default 5000). */
  interruptGraceMs?: number;
  /** Minimum time between two `onUpdate` calls while output flows, in ms (default 100). */
  updateIntervalMs?: number;
  /** Use this session manager (shared with other tools); the tool then does not dispose it. */
  manager?: SessionManager;
  /** Builds kernels (advanced; tests). Ignored when `manager` is given. */
  createKernel?: KernelFactory;
  /**
   * Run every kernel in a sandbox (docs/sandbox.md): `true`, or `{ network, writable }` to widen it.
   * EVALKIT_SANDBOX=1 turns it on. A sandbox that cannot be had fails the call with SANDBOX_UNAVAILABLE.
   */
  sandbox?: SandboxSetting;
  /** Resource limits of every kernel (with or without the sandbox). */
  limits?: ResourceLimits;
  /**
   * Run cells on a Jupyter server's kernels (docs/jupyter.md); default from EVALKIT_JUPYTER_URL and
   * EVALKIT_JUPYTER_TOKEN. Every language but `js` then runs there.
   */
  jupyter?: JupyterOption;
  /** Where EVALKIT_PY / EVALKIT_JS / EVALKIT_SANDBOX / EVALKIT_JUPYTER_* are read from (default `process.env`). */
  flagsEnv?: Record<string, string | undefined>;
  /**
   * Checkpoints of the Python state (docs/checkpoints.md): `true` (one undo level) or `{ undo, maxCount, maxBytes,
   * restoreOnCrash }`. Linux, local kernels only: with a launcher it is CHECKPOINTS_UNSUPPORTED.
   */
  checkpoints?: boolean | CheckpointOptions;
  /**
   * More languages, each a protocol runner described with `defineRuntime` (docs/runtimes.md), e.g.
   * `runtimes: [defineRuntime({ name: "perl", command: ["perl", "runner.pl"] })]`. With a shared `manager`, give
   * them to the manager instead.
   */
  runtimes?: RuntimeSpec[];
}

/** Options after validation and defaults. */
export interface ResolvedToolOptions {
  python: string | undefined;
  cwd: string;
  sessionId: string;
  mode: KernelMode;
  /** Languages exposed by configuration (options and EVALKIT_PY/EVALKIT_JS). */
  enabled: CellLanguage[];
  maxTimeout: number;
  defaultTimeout: number;
  handlers: HostBridgeHandlers | undefined;
  artifactsDir: string | undefined;
  output: EvalOutputOptions;
  env: Record<string, string>;
  launcher: string[] | undefined;
  interruptGraceMs: number | undefined;
  updateIntervalMs: number;
  manager: SessionManager | undefined;
  createKernel: KernelFactory | undefined;
  sandbox: ResolvedSandbox | undefined;
  limits: ResourceLimits | undefined;
  checkpoints: CheckpointOptions | undefined;
  jupyter: JupyterSettings | undefined;
  /** Protocol runtimes whose languages the tool offers besides `enabled`'s Python and JS (docs/runtimes.md). */
  runtimes: RuntimeSpec[];
}

const optionsSchema = lazySchema(() => {
  // The settings a session manager takes too come from one set of schemas (session/settings-schema.ts).
  const shared = settingsSchemas();
  const { fn } = shared;
  const positiveInt = z.number().int().positive();
  return z.strictObject({
    python: shared.python.optional(),
    cwd: z.string().min(1).optional(),
    sessionId: z.string().min(1).optional(),
    mode: z.enum(["session", "per-call"]).optional(),
    py: z.boolean().optional(),
    js: z.boolean().optional(),
    maxTimeout: shared.maxTimeoutSec.optional(),
    defaultTimeout: shared.defaultTimeoutSec.optional(),
    handlers: shared.bridgeHandlers.optional(),
    artifactsDir: z.string().min(1).optional(),
    output: z
      .strictObject({
        headBytes: positiveInt.optional(),
        tailBytes: positiveInt.optional(),
        maxLineChars: positiveInt.optional(),
        keepAnsi: z.boolean().optional(),
        maxImageBytes: positiveInt.optional(),
        maxImages: z.number().int().nonnegative().optional(),
        jsonTextLimit: positiveInt.optional(),
        retainStreamChars: z.number().int().nonnegative().optional(),
      })
      .optional(),
    env: shared.env.optional(),
    launcher: z.union([z.string(), z.array(z.string())]).optional(),
    interruptGraceMs: shared.interruptGraceMs.optional(),
    updateIntervalMs: z.number().finite().min(0).optional(),
    manager: z
      .custom<SessionManager>((v) => typeof v === "object" && v !== null && "openCall" in v)
      .optional(),
    createKernel: fn.optional(),
    runtimes: z.array(z.custom<RuntimeSpec>((v) => typeof v === "object" && v !== null)).optional(),
    sandbox: shared.sandbox.optional(),
    limits: shared.limits.optional(),
    flagsEnv: z.record(z.string(), z.union([z.string(), z.undefined()])).optional(),
    checkpoints: shared.checkpoints.optional(),
    jupyter: z.strictObject({ url: z.string().min(1), token: z.string().min(1).optional() }).optional(),
  });
});

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off"]);

/**
 * Reads a boolean flag variable: 1/0, true/false, yes/no, on/off (any case). Unset or empty gives undefined
 * (the option decides); anything else is INVALID_INPUT naming the variable.
 */
export function parseBooleanFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (word === "") return undefined;
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new EvalkitError(
    "INVALID_INPUT",
    `${name}: expected 1/0, true/false, yes/no or on/off, got ${JSON.stringify(value)}`,
    { field: name },
  );
}

/** Languages exposed: each flag, when set, overrides only its own option; both default to true. */
export function resolveEnabledLanguages(
  options: { py?: boolean; js?: boolean },
  env: Record<string, string | undefined> = process.env,
): CellLanguage[] {
  const py = parseBooleanFlag("EVALKIT_PY", env.EVALKIT_PY) ?? options.py ?? true;
  const js = parseBooleanFlag("EVALKIT_JS", env.EVALKIT_JS) ?? options.js ?? true;
  const enabled: CellLanguage[] = [];
  if (py) enabled.push("py");
  if (js) enabled.push("js");
  if (enabled.length === 0) {
    throw new EvalkitError(
      "INVALID_INPUT",
      "py/js: both backends are disabled (options py/js or EVALKIT_PY/EVALKIT_JS); enable at least one",
      { field: "py" },
    );
  }
  return enabled;
}

/** Validates the options (INVALID_INPUT naming the option) and fills in defaults. */
export function resolveToolOptions(options: EvalToolOptions = {}): ResolvedToolOptions {
  const parsed = optionsSchema().safeParse(options ?? {}, PARSE_ONCE);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, options);
    throw new EvalkitError("INVALID_INPUT", `invalid eval tool options: ${problems.join("; ")}`, {
      field: firstIssueField(parsed.error.issues),
      problems,
    });
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  if (!isDirectory(cwd)) {
    throw new EvalkitError("INVALID_INPUT", `cwd: ${JSON.stringify(cwd)} is not an existing directory`, {
      field: "cwd",
    });
  }
  const flagsEnv = options.flagsEnv ?? process.env;
  const sandbox = resolveSandbox(options.sandbox, flagsEnv, cwd);
  if (sandbox && options.launcher !== undefined && options.launcher.length > 0) {
    throw new EvalkitError(
      "INVALID_INPUT",
      "sandbox: cannot be combined with launcher (the sandbox runs local kernels; isolate remote ones on their side)",
      { field: "sandbox" },
    );
  }
  const maxTimeout = options.maxTimeout ?? DEFAULT_MAX_TIMEOUT_SEC;
  const launcher =
    typeof options.launcher === "string" ? splitCommandLine(options.launcher) : options.launcher;
  const jupyter = resolveJupyterOption(options.jupyter, flagsEnv);
  const runtimes = checkRuntimes(options.runtimes);
  return {
    python: options.python,
    cwd,
    sessionId: options.sessionId ?? "default",
    mode: options.mode ?? "session",
    enabled: [...resolveEnabledLanguages(options, flagsEnv), ...runtimes.map((runtime) => runtime.name)],
    maxTimeout,
    defaultTimeout: clampTimeoutSec(options.defaultTimeout, maxTimeout),
    handlers: options.handlers,
    artifactsDir: options.artifactsDir === undefined ? undefined : resolve(options.artifactsDir),
    output: { ...(options.output ?? {}) },
    env: { ...(options.env ?? {}) },
    launcher: launcher && launcher.length > 0 ? launcher : undefined,
    interruptGraceMs: options.interruptGraceMs,
    updateIntervalMs: options.updateIntervalMs ?? 100,
    manager: options.manager,
    createKernel: options.createKernel,
    sandbox,
    limits: options.limits && Object.keys(options.limits).length > 0 ? { ...options.limits } : undefined,
    checkpoints: resolveCheckpoints(options, launcher, jupyter !== undefined),
    jupyter,
    runtimes,
  };
}

/**
 * `true` is one undo level; a memory limit also caps the checkpoints' bytes (they count against it). Refused where
 * a kernel cannot fork a copy of itself that the host can reach: behind a launcher, on a Jupyter server, off Linux.
 */
function resolveCheckpoints(
  options: EvalToolOptions,
  launcher: string[] | undefined,
  hasJupyter: boolean,
): CheckpointOptions | undefined {
  const setting = options.checkpoints;
  if (setting === undefined || setting === false) return undefined;
  if (hasJupyter) {
    throw new EvalkitError(
      "CHECKPOINTS_UNSUPPORTED",
      "checkpoints: not available with a Jupyter server (its kernels belong to the server, which cannot fork them)",
      { field: "checkpoints" },
    );
  }
  if (launcher !== undefined && launcher.length > 0) {
    throw new EvalkitError(
      "CHECKPOINTS_UNSUPPORTED",
      "checkpoints: not available with a launcher (the kernel runs on the far side, where evalkit cannot fork it " +
        "and keep the copies); take them in local or sandboxed kernels",
      { field: "checkpoints" },
    );
  }
  if (process.platform !== "linux") {
    throw new EvalkitError(
      "CHECKPOINTS_UNSUPPORTED",
      `checkpoints: Linux only (copy-on-write fork and abstract Unix sockets); this is ${process.platform}`,
      { field: "checkpoints" },
    );
  }
  const resolved: CheckpointOptions = setting === true ? { undo: 1 } : { ...setting };
  const memoryMb = options.limits?.memoryMb;
  if (resolved.maxBytes === undefined && memoryMb !== undefined) resolved.maxBytes = memoryMb * 1024 * 1024;
  return resolved;
}

/**
 * The sandbox asked for by the option or EVALKIT_SANDBOX (which can turn it on, never off); writable paths
 * resolved against `cwd` and checked to exist (INVALID_INPUT naming `sandbox.writable.<i>`).
 */
export function resolveSandbox(
  setting: SandboxSetting | undefined,
  env: Record<string, string | undefined>,
  cwd: string,
): ResolvedSandbox | undefined {
  const fromEnv = parseBooleanFlag("EVALKIT_SANDBOX", env.EVALKIT_SANDBOX) === true;
  if (!fromEnv && (setting === undefined || setting === false)) return undefined;
  return resolveSandboxSetting(typeof setting === "object" ? setting : true, cwd);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
