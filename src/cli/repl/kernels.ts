// The REPL's kernels: one retained Python kernel and one JS kernel (started on first use), restart and shutdown.
import type { CellLanguage } from "../../contracts/cell-result.js";
import { EvalkitError } from "../../errors.js";
import type { JsKernel } from "../../kernel/js/js-kernel.js";
import type { JupyterKernel } from "../../kernel/jupyter/jupyter-kernel.js";
import type { JupyterSettings } from "../../kernel/jupyter/jupyter-rest.js";
import type { Kernel } from "../../kernel/kernel.js";
import { PythonKernel } from "../../kernel/python/python-kernel.js";
import type { ResolvedSandbox, ResourceLimits } from "../../runtime/sandbox-types.js";
import {
  type CheckpointBook,
  type CheckpointOptions,
  checkpointBookOf,
} from "../../session/checkpoint-book.js";
import { buildPlainEnv, createDefaultKernel, createDefaultResolver } from "../../session/default-kernels.js";
import { DEFAULT_INTERRUPT_GRACE_MS } from "../../session/session-manager.js";
import type { InterpreterResolver, KernelSpec, ResolvedInterpreter } from "../../session/session-types.js";
import { type Completeness, checkJsComplete } from "./completeness.js";
import { ReplServerKernels } from "./server-kernels.js";

/** How long Tab waits for a kernel's completions. */
const COMPLETE_TIMEOUT_MS = 2000;

export interface ReplKernelConfig {
  python?: string;
  cwd: string;
  launcher?: string[];
  sandbox?: ResolvedSandbox;
  limits?: ResourceLimits;
  /** Python checkpoints (`:checkpoint`, `:restore`, `:undo`; docs/checkpoints.md). */
  checkpoints?: CheckpointOptions;
  /** Run Python (and every language but js) on this Jupyter server's kernels. */
  jupyter?: JupyterSettings;
}

/** How the Python kernel was found, for the banner. */
export interface PythonDescription {
  executable: string;
  version: string;
  reason: string;
  pid: number | undefined;
}

/**
 * Holds the REPL's kernels. They are resolved and built by the session layer's own factories (the same
 * interpreter search, launcher environment, sandbox and limits as `exec` and `mcp`), but held here rather than
 * in a SessionManager: an interactive session needs no idle eviction or default timeout, and it talks to the
 * kernel itself (is_complete, completion, input requests, restarts).
 */
export class ReplKernels {
  private readonly config: ReplKernelConfig;
  private python: PythonKernel | JupyterKernel | undefined;
  private js: JsKernel | undefined;
  /** Set with --jupyter: the kernels on the server. */
  readonly server: ReplServerKernels | undefined;
  private pythonCommand: ResolvedInterpreter | undefined;
  private readonly resolveInterpreter: InterpreterResolver;
  /** The execution count the next cell of each language will most likely get. */
  readonly nextCount: Record<CellLanguage, number> = { py: 1, js: 1 };

  constructor(config: ReplKernelConfig) {
    this.config = config;
    this.server = config.jupyter ? new ReplServerKernels(config.jupyter) : undefined;
    this.resolveInterpreter = createDefaultResolver(config.python, {}, config.launcher);
  }

  /** Resolves the interpreter (once) and starts a Python kernel. */
  async startPython(): Promise<PythonDescription> {
    if (this.server) {
      const kernel = await this.server.get("py");
      this.python = kernel;
      this.nextCount.py = 1;
      return {
        executable: `${kernel.info?.implementation || "kernel"} on ${this.server.url}`,
        version: kernel.info?.languageVersion || "unknown",
        reason: "the Jupyter server's Python kernelspec",
        pid: undefined,
      };
    }
    if (this.pythonCommand === undefined) this.pythonCommand = await this.resolveInterpreter(this.config.cwd);
    const { executable, env, reason } = this.pythonCommand;
    const kernel = createDefaultKernel(this.spec("py", executable, env));
    if (!(kernel instanceof PythonKernel))
      throw new EvalkitError("INTERNAL", "the py kernel factory gave no PythonKernel");
    await kernel.start();
    this.python = kernel;
    this.nextCount.py = 1;
    return {
      executable: kernel.info?.executable ?? executable,
      version: kernel.info?.pythonVersion ?? "unknown",
      reason: reason ?? "",
      pid: kernel.info?.pid,
    };
  }

  /** What the session layer's kernel factory needs, as SessionManager would describe it. */
  private spec(
    language: CellLanguage,
    interpreter: string | undefined,
    env: Record<string, string>,
  ): KernelSpec {
    return {
      language,
      cwd: this.config.cwd,
      sessionId: "repl",
      interpreter,
      env,
      launcher: this.config.launcher,
      interruptGraceMs: DEFAULT_INTERRUPT_GRACE_MS,
      ...(this.config.sandbox ? { sandbox: this.config.sandbox } : {}),
      ...(this.config.limits ? { limits: this.config.limits } : {}),
      ...(this.config.checkpoints !== undefined && language === "py" ? { checkpoints: true } : {}),
    };
  }

  /** The checkpoints of the Python kernel (CHECKPOINTS_UNSUPPORTED without `--checkpoints`). */
  async checkpointBook(): Promise<CheckpointBook> {
    const options = this.config.checkpoints;
    if (options === undefined) {
      throw new EvalkitError(
        "CHECKPOINTS_UNSUPPORTED",
        "checkpoints are off: start the REPL with --checkpoints",
      );
    }
    const python = this.python as Kernel | undefined;
    const kernel = python?.checkpoints?.isRestorable ? python : await this.get("py");
    return checkpointBookOf(kernel, options);
  }

  /** Before a Python cell: the automatic undo checkpoint (nothing without `--undo`/`--checkpoints`). */
  async takeUndoPoint(): Promise<string[]> {
    const notices: string[] = [];
    if (!this.config.checkpoints?.undo || this.python?.isAlive !== true) return notices;
    try {
      await (await this.checkpointBook()).takeAutomatic(notices);
    } catch (err) {
      notices.push(`no undo point for this cell: ${err instanceof Error ? err.message : String(err)}`);
    }
    return notices;
  }

  /** After the Python interpreter died: a fresh one (or the newest checkpoint) from the surviving root. */
  async recoverPython(): Promise<string[] | undefined> {
    const python = this.python as Kernel | undefined;
    if (this.config.checkpoints === undefined || python?.checkpoints?.isRestorable !== true) return undefined;
    return (await this.checkpointBook()).recover();
  }

  /**
   * Tab completion from the live namespace of `language`'s kernel, computed in the kernel. A kernel that does not
   * answer within COMPLETE_TIMEOUT_MS (a cell holding the GIL, a synchronous JS loop) gives no matches rather
   * than freezing the line editor, which waits for the answer.
   */
  async complete(language: CellLanguage, line: string): Promise<{ start: number; matches: string[] }> {
    const none = { start: line.length, matches: [] };
    if (language !== "js" && language !== "py") {
      const kernel = this.server?.peek(language);
      return kernel ? kernel.complete(line, COMPLETE_TIMEOUT_MS) : none;
    }
    if (language === "js") {
      // Tab before the first JS cell starts the kernel, as that cell would (about 100 ms, once).
      if (this.js === undefined) await this.get("js").catch(() => undefined);
      return this.js?.isAlive ? this.js.complete(line, line.length, COMPLETE_TIMEOUT_MS) : none;
    }
    if (this.python === undefined || !this.python.isAlive) return none;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof none>((resolve) => {
      timer = setTimeout(() => resolve(none), COMPLETE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.python.complete(line), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The kernel for `language`, starting JS on first use. Python must have been started. */
  async get(language: CellLanguage): Promise<Kernel> {
    if (language === "py") {
      if (this.python === undefined || !this.python.isAlive) await this.startPython();
      return this.python as Kernel;
    }
    if (language !== "js") {
      if (!this.server) throw new EvalkitError("INVALID_INPUT", `${language} cells need --jupyter URL`);
      return this.server.get(language);
    }
    if (this.js === undefined) {
      this.js = createDefaultKernel(this.spec("js", undefined, buildPlainEnv({}))) as JsKernel;
      this.nextCount.js = 1;
    }
    await this.js.start();
    return this.js;
  }

  /** True when Python is running (used to decide whether a restart is needed). */
  get isPythonAlive(): boolean {
    return this.python?.isAlive === true;
  }

  /** Replaces the kernel of `language` with a fresh one (state lost). */
  async restart(language: CellLanguage): Promise<PythonDescription | undefined> {
    if (language !== "py" && language !== "js") {
      await this.server?.restart(language);
      this.nextCount[language] = 1;
      return undefined;
    }
    if (language === "py") {
      if (this.server) await this.server.restart("py");
      await this.python?.shutdown();
      this.python = undefined;
      return this.startPython();
    }
    await this.js?.shutdown();
    this.js = undefined;
    await this.get("js");
    return undefined;
  }

  /** Whether `code` is a whole cell: the runner decides for Python (codeop), acorn for JS. */
  async checkComplete(language: CellLanguage, code: string): Promise<Completeness> {
    if (language === "js") return checkJsComplete(code);
    if (language !== "py") {
      const kernel = this.server?.peek(language);
      if (!kernel) return { status: "complete", indent: "" };
      return kernel.isComplete(code);
    }
    if (this.python === undefined || !this.python.isAlive) return { status: "complete", indent: "" };
    try {
      return await this.python.isComplete(code);
    } catch {
      return { status: "complete", indent: "" };
    }
  }

  /** Shuts every kernel down (exit request, then SIGTERM/SIGKILL to its process group). */
  async shutdown(): Promise<void> {
    await Promise.allSettled([this.python?.shutdown(), this.js?.shutdown(), this.server?.shutdown()]);
    this.python = undefined;
    this.js = undefined;
  }
}
