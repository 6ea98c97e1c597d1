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
  const parsed = optionsSchema().safeParse(options, PARSE_ONCE);
  if (parsed.success) return options;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "options";
  throw new EvalkitError("INVALID_INPUT", `invalid JsKernel option ${field}: ${issue?.message}`, { field });
}

/** The memory limits in force: [heap MB, resident MB]. */
export function memoryLimits(options: JsKernelOptions): { maxHeapMb: number; memoryMb: number } {
  const memoryMb = options.memoryMb ?? Math.min(8192, Math.floor(totalmem() / 2 / 1024 / 1024));
  return { maxHeapMb: options.maxHeapMb ?? Math.min(4096, memoryMb), memoryMb };
}
