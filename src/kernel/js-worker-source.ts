// Assembles the JS worker's source text and types the messages it sends to the host.
import type { KernelOutput } from "../contracts/outputs.js";
import { JS_WORKER_CORE, JS_WORKER_MAIN } from "./js-worker-core.js";
import { JS_WORKER_IMPORTS } from "./js-worker-imports.js";
import { JS_WORKER_PRELUDE } from "./js-worker-prelude.js";

/** worker -> host messages (host -> worker: `exec`, `interrupt`, `reply`). */
export type WorkerMessage =
  | { t: "ready"; node: string; cwd: string }
  | { t: "stream"; name: "stdout" | "stderr"; text: string }
  | { t: "output"; output: KernelOutput }
  | { t: "call"; callId: string; method: string; params: Record<string, unknown> }
  | { t: "done"; id: string; status: "ok" | "error"; cancelled: boolean };

let cached: string | undefined;

/** The worker's whole program, started with `new Worker(source, { eval: true })`. */
export function buildJsWorkerSource(): string {
  cached ??= [JS_WORKER_CORE, JS_WORKER_IMPORTS, JS_WORKER_PRELUDE, JS_WORKER_MAIN].join("\n");
  return cached;
}
