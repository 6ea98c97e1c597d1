// JsKernel's constructor options, their validation and defaults.
import { totalmem } from "node:os";
import * as z from "zod";
import { lazySchema, PARSE_ONCE } from "../../contracts/lazy-schema.js";
import { EvalkitError } from "../../errors.js";
import type { ResolvedSandbox, ResourceLimits } from "../../runtime/sandbox-types.js";

/** {@link JsKernelOptions.interruptGraceMs} when none is given. */
export const JS_INTERRUPT_GRACE_MS = 500;
/** {@link JsKernelOptions.startTimeoutMs} when none is given. */
export const JS_START_TIMEOUT_MS = 10_000;

/** Options for {@link JsKernel}. */
export interface JsKernelOptions {
  /** Working directory of the kernel process: `require`, `import()`, `read()`/`write()` resolve against it. */
  cwd?: string;
  /** The kernel's complete `process.env` (default: a copy of the host's). */
  env?: Record<string, string>;
  /** After an interrupt that the cell does not honour, kill the kernel (default 500 ms). */
  interruptGraceMs?: number;
  /** Deadline for the kernel's `ready` frame (default 10 s). */
  startTimeoutMs?: number;
  /** Stream text kept per cell in `outcome.outputs` (default 1 MiB); everything still reaches `onOutput`. */
  retainStreamBytes?: number;
  /** V8 heap limit of the kernel (`--max-old-space-size`, default the smaller of 4096 and `memoryMb`). */
  maxHeapMb?: number;
  /** Resident memory the kernel may use, Buffers included (default half the machine's, at most 8192 MB). */
  memoryMb?: number;
  /** Node executable (default: the one running the host). */
  node?: string;
  /** Command prefix the kernel runs through; it must pass fd 3 on (`prlimit`, `nice`, `bwrap` do). */
  launcher?: string[];
  /** Run the kernel in a bubblewrap sandbox (docs/sandbox.md); SANDBOX_UNAVAILABLE when none can be had. */
  sandbox?: ResolvedSandbox;
  /** CPU seconds and process limits, set through `prlimit` (util-linux); the memory limit is `memoryMb`. */
  limits?: Pick<ResourceLimits, "cpuSeconds" | "processes">;
  /**
   * Python 3.8+ that runs the kernel's subreaper parent, which ends double-forked daemons with the kernel (Linux;
   * default: a system `python3`, else one on PATH; `false`: none). Not used in the sandbox or with a `launcher`.
   */
  subreaperPython?: string | false;
}

const optionsSchema = lazySchema(() =>
  z.object({
    cwd: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    interruptGraceMs: z.number().int().nonnegative().optional(),
    startTimeoutMs: z.number().int().positive().optional(),
    retainStreamBytes: z.number().int().nonnegative().optional(),
    maxHeapMb: z.number().int().min(16).optional(),
    memoryMb: z.number().int().min(64).optional(),
    node: z.string().min(1).optional(),
    launcher: z.array(z.string()).optional(),
    sandbox: z.object({ network: z.boolean(), writable: z.array(z.string()) }).optional(),
    limits: z
      .object({
        cpuSeconds: z.number().int().positive().optional(),
        processes: z.number().int().positive().optional(),
      })
      .optional(),
    subreaperPython: z.union([z.string().min(1), z.literal(false)]).optional(),
  }),
);

/** Returns the options unchanged, or throws INVALID_INPUT naming the offending field. */
export function validateOptions(options: JsKernelOptions): JsKernelOptions {
  // Building the schema and its first parse cost ~5 ms of a process's first kernel, before its spawn; options of
  // the plain shapes need none of it (a property test holds the check to the schema).
  if (isPlainlyValid(options)) return options;
  const issue = schemaIssue(options);
  if (issue === undefined) return options;
  throw new EvalkitError("INVALID_INPUT", `invalid JsKernel option ${issue.field}: ${issue.message}`, {
    field: issue.field,
  });
}

/** What the schema finds wrong with `options` (the first issue), or undefined when it accepts them. */
export function schemaIssue(options: unknown): { field: string; message: string } | undefined {
  const parsed = optionsSchema().safeParse(options, PARSE_ONCE);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return { field: issue?.path.join(".") || "options", message: String(issue?.message) };
}

/** The memory limits in force: [heap MB, resident MB]. */
export function memoryLimits(options: JsKernelOptions): { maxHeapMb: number; memoryMb: number } {
  const memoryMb = options.memoryMb ?? Math.min(8192, Math.floor(totalmem() / 2 / 1024 / 1024));
  return { maxHeapMb: options.maxHeapMb ?? Math.min(4096, memoryMb), memoryMb };
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === "string" && v.length > 0;
const isStrings: Check = (v) => {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false; // holes too
  return true;
};
const atLeast =
  (min: number): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" &&
  v !== null &&
  Object.getPrototypeOf(v) === Object.prototype &&
  Object.getOwnPropertySymbols(v).length === 0;
const isEnv: Check = (v) => isPlainObject(v) && Object.values(v).every((item) => typeof item === "string");
const isSandbox: Check = (v) => isPlainObject(v) && typeof v.network === "boolean" && isStrings(v.writable);
const isLimits: Check = (v) =>
  isPlainObject(v) &&
  (v.cpuSeconds === undefined || atLeast(1)(v.cpuSeconds)) &&
  (v.processes === undefined || atLeast(1)(v.processes));

/** Per option, a check that accepts only what the schema accepts (it may turn down more: zod then decides). */
const PLAIN_CHECKS = new Map<string, Check>(
  Object.entries({
    cwd: isString,
    env: isEnv,
    interruptGraceMs: atLeast(0),
    startTimeoutMs: atLeast(1),
    retainStreamBytes: atLeast(0),
    maxHeapMb: atLeast(16),
    memoryMb: atLeast(64),
    node: isString,
    launcher: isStrings,
    sandbox: isSandbox,
    limits: isLimits,
    subreaperPython: (v: unknown) => v === false || isString(v),
  }),
);

/** True for a plain object whose known options are all present with valid values or undefined. */
export function isPlainlyValid(options: unknown): boolean {
  if (!isPlainObject(options)) return false;
  for (const key of Object.keys(options)) {
    const check = PLAIN_CHECKS.get(key);
    const value = options[key];
    if (check === undefined || (value !== undefined && !check(value))) return false;
  }
  return true;
}
