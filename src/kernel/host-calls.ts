// Answers a runner's `call` frame (the bridge: completion(), agent(), tool.*) with the host's handler.
import { EvalkitError } from "../errors.js";
import type { ExecuteOptions } from "./kernel.js";

/** The `reply` frame for one call: the handler's value, or its error by name and message. */
export async function answerHostCall(
  options: ExecuteOptions,
  call: { callId: string; method: string; params: Record<string, unknown>; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  try {
    if (!options.onCall)
      throw new EvalkitError("INVALID_INPUT", `no host handler registered for ${call.method}()`);
    const value = await options.onCall({ method: call.method, params: call.params, signal: call.signal });
    return { type: "reply", callId: call.callId, ok: true, value: value === undefined ? null : value };
  } catch (err) {
    const name = err instanceof Error ? err.name : "Error";
    const message = err instanceof Error ? err.message : String(err);
    return { type: "reply", callId: call.callId, ok: false, error: { name, message } };
  }
}
