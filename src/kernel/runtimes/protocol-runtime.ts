// A protocol runner's description over the one client: its command on NDJSON stdin/stdout, nothing written
// first, no hooks (a runner that follows docs/protocol.md needs none), and a kernel over it.
import { EvalkitError } from "../../errors.js";
import { KernelClient } from "../client/kernel-client.js";
import type { CellRequest, ConnectionEvents, RuntimeDescription } from "../client/runtime-description.js";
import { StdioRunnerProcess } from "../process/stdio-runner-process.js";
import type { RuntimeSpec } from "./define-runtime.js";

/** Where and how one kernel of a runtime runs. */
export interface RuntimeKernelOptions {
  /** Working directory of the runner. */
  cwd?: string;
  /** The runner's environment (already filtered); the runtime's own `env` entries are added on top. */
  env?: Record<string, string>;
  /** The kernel's grace after an interrupt (default: the runtime's). */
  interruptGraceMs?: number;
  /** Stream text kept per cell in `outcome.outputs` (default 1 MiB). */
  retainStreamBytes?: number;
}

/** The description of one kernel of `runtime`. */
export function describeProtocolRuntime(
  runtime: RuntimeSpec,
  options: RuntimeKernelOptions,
): RuntimeDescription {
  const [command, ...args] = runtime.command;
  return {
    name: runtime.name,
    language: runtime.name,
    interrupt: runtime.interrupt,
    interruptGraceMs: runtime.interruptGraceMs,
    startTimeoutMs: runtime.startTimeoutMs,
    retainStreamBytes: options.retainStreamBytes,
    echoesNonce: runtime.echoesNonce,
    hasIsComplete: runtime.hasIsComplete,
    restartsOnExecute: false,
    countsCellsOnHost: false,
    keepsStrayOutput: false,
    launch: async (events: ConnectionEvents) =>
      new StdioRunnerProcess(
        {
          name: runtime.name,
          command,
          args,
          env: { ...(options.env ?? (process.env as Record<string, string>)), ...runtime.env },
          cwd: options.cwd,
          describeSpawnError: (err) => {
            const isMissing = (err as NodeJS.ErrnoException).code === "ENOENT";
            return new EvalkitError(
              "KERNEL_START_FAILED",
              isMissing
                ? `the ${runtime.name} runner's program ${command} was not found`
                : `could not start the ${runtime.name} runner ${command}: ${err.message}`,
              { command },
              err,
            );
          },
        },
        events,
      ),
    executeFrame: (cell: CellRequest) => {
      const { options: cellOptions } = cell;
      const frame: Record<string, unknown> = { type: "execute", id: cell.id, code: cell.code };
      if (cell.nonce !== undefined) frame.nonce = cell.nonce;
      if (cellOptions.silent) frame.silent = true;
      if (cellOptions.storeHistory === false) frame.storeHistory = false;
      if (cellOptions.cwd) frame.cwd = cellOptions.cwd;
      if (cellOptions.env) frame.env = cellOptions.env;
      if (cellOptions.onInputRequest) frame.allowStdin = true;
      return frame;
    },
  };
}

/** A kernel of a protocol runtime (docs/runtimes.md): the one client over the runtime's description. */
export function createRuntimeKernel(runtime: RuntimeSpec, options: RuntimeKernelOptions = {}): KernelClient {
  return new KernelClient(
    describeProtocolRuntime(runtime, options),
    options.interruptGraceMs ?? runtime.interruptGraceMs,
  );
}
