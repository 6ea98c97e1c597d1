// One retained JavaScript kernel: the JS runtime description over the one kernel client (a child `node` process
// that keeps one vm context), with JS's typed accessors and `restart`.
import path from "node:path";
import { KernelClient } from "../client/kernel-client.js";
import type { CompletionReply } from "../kernel.js";
import { JS_INTERRUPT_GRACE_MS, type JsKernelOptions, validateOptions } from "./js-kernel-options.js";
import { JsRuntime } from "./js-runtime.js";

/** Tab completion: replace `code.slice(start, cursor)` with one of `matches`. */
export type Completion = CompletionReply;
export type { JsKernelOptions } from "./js-kernel-options.js";

/** A retained JavaScript kernel (docs/javascript.md). A dead process is replaced by a fresh one on the next `execute`. */
export class JsKernel extends KernelClient {
  declare readonly language: "js";
  private readonly js: JsRuntime;

  constructor(options: JsKernelOptions = {}) {
    const valid = validateOptions(options);
    const runtime = new JsRuntime(valid, path.resolve(valid.cwd ?? process.cwd()));
    super(runtime, valid.interruptGraceMs ?? JS_INTERRUPT_GRACE_MS);
    this.js = runtime;
  }

  /** The kernel's working directory as cells see it. */
  get cwd(): string {
    return this.js.cwd;
  }

  /** A fresh context: end the process (all state goes) and start a new one. */
  async restart(): Promise<void> {
    await this.stopProcess(false);
    await this.start();
  }
}
