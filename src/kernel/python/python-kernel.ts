// One retained Python interpreter: the Python runtime description over the one kernel client, with Python's
// typed accessors (its info, checkpoints and process ids).
import { KernelClient } from "../client/kernel-client.js";
import type { CompletenessReply } from "../kernel.js";
import type { PythonCheckpoints } from "./python-checkpoints.js";
import {
  PYTHON_INTERRUPT_GRACE_MS,
  type PythonKernelInfo,
  type PythonKernelOptions,
} from "./python-kernel-options.js";
import { PythonRuntime } from "./python-runtime.js";

/** A retained Python subprocess speaking evalkit's NDJSON protocol (docs/protocol.md). */
export class PythonKernel extends KernelClient {
  declare readonly language: "py";
  /** Python's runner always answers `is_complete`. */
  declare isComplete: (code: string) => Promise<CompletenessReply>;
  private readonly python: PythonRuntime;

  constructor(options: PythonKernelOptions) {
    const runtime = new PythonRuntime(options);
    super(runtime, options.interruptGraceMs ?? PYTHON_INTERRUPT_GRACE_MS);
    this.python = runtime;
    runtime.link = {
      send: (frame) => this.send(frame),
      between: (run) => this.between(run),
      loseInterpreter: (err) => this.loseInterpreter(err),
      connection: () => this.connection,
    };
  }

  /** What the runner reported about itself at start-up. */
  get info(): PythonKernelInfo | undefined {
    return this.python.info;
  }

  /** Time travel, when the kernel was started with `checkpoints` and the runner took them (docs/checkpoints.md). */
  get checkpoints(): PythonCheckpoints | undefined {
    return this.python.checkpoints;
  }

  /** The process that runs cells: `pid` unless the kernel has checkpoints (then a fork of it, changed by restores). */
  get livePid(): number | undefined {
    return this.python.checkpoints?.livePid ?? this.python.info?.pid;
  }
}

export type { PythonKernelInfo, PythonKernelOptions } from "./python-kernel-options.js";
