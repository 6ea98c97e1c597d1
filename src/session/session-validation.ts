// zod schemas for the session layer's public inputs; failures become INVALID_INPUT naming the field.
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { EvalkitError } from "../errors.js";
import { settingsSchemas } from "./settings-schema.js";

/** The session layer's input schemas, built on first use (see contracts/lazy-schema.ts). */
export const sessionSchemas = lazySchema(() => {
  const shared = settingsSchemas();
  const { fn } = shared;
  const signal = z.custom<AbortSignal>((value) => value instanceof AbortSignal, {
    message: "expected an AbortSignal",
  });
  const positiveMs = z.number().finite().positive();
  const language = z.string().min(1);
  const bridge = shared.bridgeHandlers;

  const manager = z
    .object({
      mode: z.enum(["session", "per-call"]).optional(),
      createKernel: fn.optional(),
      resolveInterpreter: fn.optional(),
      python: shared.python.optional(),
      env: shared.env.optional(),
      launcher: z.array(z.string()).optional(),
      sandbox: shared.sandbox.optional(),
      limits: shared.limits.optional(),
      resolveCacheMs: z.number().finite().min(0).optional(),
      idleEvictMs: positiveMs.optional(),
      maxKernels: z.number().int().min(1).optional(),
      heartbeatMs: positiveMs.optional(),
      interruptGraceMs: shared.interruptGraceMs.optional(),
      defaultTimeoutSec: shared.defaultTimeoutSec.optional(),
      maxTimeoutSec: shared.maxTimeoutSec.optional(),
      crashLoopThreshold: z.number().int().min(1).optional(),
      bridge: bridge.optional(),
      checkpoints: shared.checkpointOptions.optional(),
      jupyter: z
        .object({ url: z.url({ protocol: /^https?$/ }), token: z.string().min(1).optional() })
        .strict()
        .optional(),
    })
    .loose();

  const call = z
    .object({
      sessionId: z.string().min(1).optional(),
      cwd: z.string().min(1).optional(),
      signal: signal.optional(),
      bridge: bridge.optional(),
      onInputRequest: fn.optional(),
    })
    .loose();

  const cell = z
    .object({
      language: language.optional(),
      code: z.string(),
      timeoutSec: z.number().optional(),
      reset: z.boolean().optional(),
      signal: signal.optional(),
      onOutput: fn.optional(),
      retainOutputs: z.boolean().optional(),
    })
    .loose();
  return { manager, call, cell };
});

const isOptional = (value: unknown, check: (value: unknown) => boolean) =>
  value === undefined || check(value);
const isFunction = (value: unknown) => typeof value === "function";
const isSignal = (value: unknown) => value instanceof AbortSignal;
const isId = (value: unknown) => typeof value === "string" && value.length > 0;

/**
 * Every warm cell passes here: a request whose fields all have the usual shapes is one the schema accepts, so
 * zod (several allocations and microseconds a cell) only runs for the rest, and finds what is wrong with it.
 */
export function validateCellRequest(request: unknown): void {
  if (typeof request === "object" && request !== null && !Array.isArray(request)) {
    const r = request as Record<string, unknown>;
    if (
      typeof r.code === "string" &&
      isOptional(r.language, (v) => typeof v === "string" && v !== "") &&
      isOptional(r.timeoutSec, (v) => typeof v === "number" && Number.isFinite(v)) &&
      isOptional(r.reset, (v) => typeof v === "boolean") &&
      isOptional(r.signal, isSignal) &&
      isOptional(r.onOutput, isFunction) &&
      isOptional(r.retainOutputs, (v) => typeof v === "boolean")
    )
      return;
  }
  validateInput(sessionSchemas().cell, request, "cell");
}

/** As {@link validateCellRequest}, for `openCall()` (a request with `bridge` handlers always takes zod). */
export function validateCallRequest(request: unknown): void {
  if (typeof request === "object" && request !== null && !Array.isArray(request)) {
    const r = request as Record<string, unknown>;
    if (
      r.bridge === undefined &&
      isOptional(r.sessionId, isId) &&
      isOptional(r.cwd, isId) &&
      isOptional(r.signal, isSignal) &&
      isOptional(r.onInputRequest, isFunction)
    )
      return;
  }
  validateInput(sessionSchemas().call, request, "session call");
}

/** Parses `value` or throws INVALID_INPUT naming the first offending field. */
export function validateInput(
  schema: z.ZodType,
  value: unknown,
  what: string,
  context?: z.core.ParseContext<z.core.$ZodIssue>,
): void {
  const result = schema.safeParse(value, context);
  if (result.success) return;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : what;
  throw new EvalkitError("INVALID_INPUT", `invalid ${what}: ${field}: ${issue?.message ?? "invalid value"}`, {
    field,
  });
}
