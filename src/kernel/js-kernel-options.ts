// JsKernel's constructor options and their validation.
import type { ResourceLimits } from "node:worker_threads";
import * as z from "zod";
import { EvalkitError } from "../errors.js";

/** Options for {@link JsKernel}. */
export interface JsKernelOptions {
  /** Directory `require`, `import()`, `read()`/`write()` and `process.cwd()` resolve against (default: the host's). */
  cwd?: string;
  /** The worker's complete `process.env` (default: a copy of the host's). */
  env?: Record<string, string>;
  /** After an interrupt that the cell does not honour (a synchronous loop), terminate the worker (default 500 ms). */
  interruptGraceMs?: number;
  /** Deadline for the worker's `ready` message (default 10 s). */
  startTimeoutMs?: number;
  /** Stream text kept per cell in `outcome.outputs` (default 1 MiB); everything still reaches `onOutput`. */
  retainStreamBytes?: number;
  /** V8 heap limits for the worker; exceeding them kills the worker, never the host. */
  resourceLimits?: ResourceLimits;
}

const optionsSchema = z.object({
  cwd: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  interruptGraceMs: z.number().int().nonnegative().optional(),
  startTimeoutMs: z.number().int().positive().optional(),
  retainStreamBytes: z.number().int().nonnegative().optional(),
  resourceLimits: z.record(z.string(), z.number()).optional(),
});

/** Returns the options unchanged, or throws INVALID_INPUT naming the offending field. */
export function validateOptions(options: JsKernelOptions): JsKernelOptions {
  const parsed = optionsSchema.safeParse(options);
  if (parsed.success) return options;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "options";
  throw new EvalkitError("INVALID_INPUT", `invalid JsKernel option ${field}: ${issue?.message}`, { field });
}
