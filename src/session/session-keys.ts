// The identities of kernels and session queues: pure in their parts, so the last answer of each is kept.
import type { KernelSpec } from "./session-types.js";

// Warm calls ask for the same keys over and over: the last answer of each is kept (a key is pure in its parts).
let lastKernelKey:
  | { sessionId: string; cwd: string; interpreter: string; language: string; key: string }
  | undefined;
let lastGroupKey: { sessionId: string; cwd: string; key: string } | undefined;

/** Kernels are shared by session id + real cwd + interpreter + language. */
export function makeKernelKey(sessionId: string, cwd: string, spec: KernelSpec): string {
  const interpreter = spec.interpreter ?? "";
  const last = lastKernelKey;
  if (
    last !== undefined &&
    last.sessionId === sessionId &&
    last.cwd === cwd &&
    last.interpreter === interpreter &&
    last.language === spec.language
  )
    return last.key;
  const key = JSON.stringify([sessionId, cwd, interpreter, spec.language]);
  lastKernelKey = { sessionId, cwd, interpreter, language: spec.language, key };
  return key;
}

/** The queue identity: calls on one session id in one directory never interleave. */
export function makeGroupKey(sessionId: string, cwd: string): string {
  const last = lastGroupKey;
  if (last !== undefined && last.sessionId === sessionId && last.cwd === cwd) return last.key;
  const key = JSON.stringify([sessionId, cwd]);
  lastGroupKey = { sessionId, cwd, key };
  return key;
}
