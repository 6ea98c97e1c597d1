// The settings a tool and a session manager share, as one set of zod schemas: each entry point parses them once.
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";

/**
 * One schema per shared setting (sandbox, limits, checkpoints, bridge handlers, environment, the cell's time):
 * `createEvalTool` (tool-options.ts) and `SessionManager` (session-validation.ts) compose their option schemas
 * from these, so a setting is written, and its errors read, the same at every public entry.
 */
export const settingsSchemas = lazySchema(() => {
  const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
    message: "expected a function",
  });
  const positiveInt = z.number().int().positive();
  const checkpointOptions = z.strictObject({
    undo: z.number().int().min(0).max(1000).optional(),
    maxCount: positiveInt.optional(),
    maxBytes: positiveInt.optional(),
    restoreOnCrash: z.boolean().optional(),
  });
  return {
    fn,
    python: z.string().min(1),
    env: z.record(z.string(), z.string()),
    sandbox: z.union([
      z.boolean(),
      z.strictObject({ network: z.boolean().optional(), writable: z.array(z.string().min(1)).optional() }),
    ]),
    limits: z.strictObject({
      memoryMb: positiveInt.optional(),
      cpuSeconds: positiveInt.optional(),
      processes: positiveInt.optional(),
    }),
    checkpointOptions,
    /** The tool's form: `true` for the defaults, or the options. */
    checkpoints: z.union([z.boolean(), checkpointOptions]),
    bridgeHandlers: z
      .object({
        agent: fn.optional(),
        completion: fn.optional(),
        tools: z.record(z.string(), fn).optional(),
        concurrency: z.number().int().min(1).optional(),
      })
      .loose(),
    /** Seconds a cell gets when it asks for nothing (cell-timing.ts clamps it to the ceiling). */
    defaultTimeoutSec: z.number().finite().positive(),
    /** Ceiling of any cell's budget, in seconds. */
    maxTimeoutSec: z.number().finite().min(1),
    interruptGraceMs: z.number().finite().min(0),
  };
});
