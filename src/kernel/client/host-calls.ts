// Answers a runner's `call` frame (the bridge: completion(), agent(), tool.*) with the host's handler.
import { whyNotEncodable } from "../../contracts/kernel-values.js";
import { EvalkitError } from "../../errors.js";
import type { ExecuteOptions } from "../kernel.js";

/**
 * The `reply` frame for one call: the handler's value, or its error by name and message. Never throws: a value
 * the reply cannot carry (a BigInt, a cycle, nesting past the bound) is an error reply, a `BridgeError` in the
 * cell, instead of an exception in the host when the frame is encoded.
 */
export async function answerHostCall(
  options: ExecuteOptions,
  call: { callId: string; method: string; params: Record<string, unknown>; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  try {
    if (!options.onCall)
      throw new EvalkitError("INVALID_INPUT", `no host handler registered for ${call.method}()`);
    const value = await options.onCall({ method: call.method, params: call.params, signal: call.signal });
    const reply = value === undefined ? null : value;
    const problem = whyNotEncodable(reply);
    if (problem !== undefined)
      throw new TypeError(`the host handler's value cannot be sent back as JSON: ${problem}`);
    return { type: "reply", callId: call.callId, ok: true, value: reply };
  } catch (err) {
    return { type: "reply", callId: call.callId, ok: false, error: describeError(err) };
  }
}

/** Name and message of anything thrown; reading them cannot throw either (a hostile getter, a revoked proxy). */
function describeError(err: unknown): { name: string; message: string } {
  try {
    if (err instanceof Error) return { name: String(err.name), message: String(err.message) };
    return { name: "Error", message: String(err) };
  } catch {
    return { name: "Error", message: "the host handler failed with a value that cannot be described" };
  }
}
