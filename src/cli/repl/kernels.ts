// The REPL's session: one SessionManager session runs its cells in every language, and answers the prompt.
import type { CellLanguage } from "../../contracts/cell-result.js";
import type { KernelOutput } from "../../contracts/outputs.js";
import { EvalkitError } from "../../errors.js";
import type { JupyterSettings } from "../../kernel/jupyter/jupyter-rest.js";
import type { ResolvedSandbox, ResourceLimits } from "../../runtime/sandbox-types.js";
import type { CheckpointBook, CheckpointOptions } from "../../session/checkpoint-book.js";
import {
  checkCompleteInSession,
  completeInSession,
  describeSessionKernel,
  interruptInSession,
  restartInSession,
  type SessionKernelRef,
} from "../../session/session-assist.js";
import { SessionManager } from "../../session/session-manager.js";
import type { SessionCellOutcome } from "../../session/session-types.js";
import { LONGEST_TIMER_MS, REPL_MAX_TIMEOUT_SEC } from "./args.js";
import { type Completeness, checkJsComplete } from "./completeness.js";

/** The session id of the REPL's kernels. */
const REPL_SESSION_ID = "repl";

/** Kernels one REPL may hold (Python, JS and the server languages it visits) before the least used is evicted. */
const REPL_MAX_KERNELS = 64;

export interface ReplKernelConfig {
  python?: string;
  cwd: string;
  launcher?: string[];
  sandbox?: ResolvedSandbox;
  limits?: ResourceLimits;
  /** Interrupt cells that run longer than this (seconds, clamped already); without it a cell has no limit. */
  timeoutSec?: number;
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

/** What a cell needs from the prompt while it runs. */
export interface ReplCellHooks {
  /** Aborting interrupts the cell; the kernel client kills it if it has not ended after the grace. */
  signal: AbortSignal;
  onOutput: (output: KernelOutput) => void;
  onInputRequest: (prompt: string, isPassword: boolean) => Promise<string>;
}

/**
 * The REPL's kernels, held by a SessionManager like those of `exec` and `mcp`: the same interpreter search,
 * launcher environment, sandbox, limits and Jupyter server, and the same cell path (watchdog, input requests,
 * death classification, crash replacement, undo points). One session in the REPL's cwd holds every language.
 */
export class ReplKernels {
  readonly manager: SessionManager;
  /** The execution count the next cell of each language will most likely get. */
  readonly nextCount: Record<CellLanguage, number> = { py: 1, js: 1 };
  private readonly cwd: string;
  private readonly jupyter: JupyterSettings | undefined;
  private readonly hasCheckpoints: boolean;

  constructor(config: ReplKernelConfig) {
    this.cwd = config.cwd;
    this.jupyter = config.jupyter;
    this.hasCheckpoints = config.checkpoints !== undefined;
    this.manager = new SessionManager({
      ...(config.python !== undefined ? { python: config.python } : {}),
      ...(config.launcher !== undefined ? { launcher: config.launcher } : {}),
      ...(config.sandbox !== undefined ? { sandbox: config.sandbox } : {}),
      ...(config.limits !== undefined ? { limits: config.limits } : {}),
      ...(config.checkpoints !== undefined ? { checkpoints: config.checkpoints } : {}),
      ...(config.jupyter !== undefined ? { jupyter: config.jupyter } : {}),
      // "No limit" is the manager's ceiling; --timeout, when given, is the session's default for every cell.
      maxTimeoutSec: REPL_MAX_TIMEOUT_SEC,
      defaultTimeoutSec: config.timeoutSec ?? REPL_MAX_TIMEOUT_SEC,
      // A person's variables are not evicted while they think: idle kernels stay for the longest timer window.
      idleEvictMs: LONGEST_TIMER_MS,
      maxKernels: REPL_MAX_KERNELS,
      // The interpreter is resolved once: a venv made during the session does not swap the kernel under the prompt.
      resolveCacheMs: Number.MAX_SAFE_INTEGER,
    });
  }

  /** The Jupyter server's URL with --jupyter, for the banner. */
  get serverUrl(): string | undefined {
    return this.jupyter?.url;
  }

  /** Starts the Python kernel (resolving the interpreter) and says which it is. */
  async startPython(): Promise<PythonDescription> {
    await this.manager.warm(this.ref("py"));
    this.nextCount.py = 1;
    return this.describePython();
  }

  /** Runs one cell on `language`'s kernel (started when there is none) as one call of the REPL's session. */
  async run(code: string, language: CellLanguage, hooks: ReplCellHooks): Promise<SessionCellOutcome> {
    const call = this.manager.openCall({
      sessionId: REPL_SESSION_ID,
      cwd: this.cwd,
      signal: hooks.signal,
      onInputRequest: hooks.onInputRequest,
    });
    try {
      const outcome = await call.run({ language, code, onOutput: hooks.onOutput });
      if (outcome.executionCount !== null) this.nextCount[language] = outcome.executionCount + 1;
      return outcome;
    } finally {
      await call.close();
    }
  }

  /** A running cell's second Ctrl-C: the interrupt again (the first one went through the cell's signal). */
  interruptAgain(language: CellLanguage): Promise<void> {
    return interruptInSession(this.manager, this.ref(language));
  }

  /** True when `language`'s kernel is running. */
  async isAlive(language: CellLanguage): Promise<boolean> {
    const kernel = await this.manager.peekKernel(this.ref(language)).catch(() => undefined);
    return kernel?.isAlive === true;
  }

  /** Runs `step` on the Python kernel's checkpoints (CHECKPOINTS_UNSUPPORTED without `--checkpoints`). */
  async withCheckpoints<T>(step: (book: CheckpointBook, notices: string[]) => Promise<T>): Promise<T> {
    if (!this.hasCheckpoints) {
      throw new EvalkitError(
        "CHECKPOINTS_UNSUPPORTED",
        "checkpoints are off: start the REPL with --checkpoints",
      );
    }
    const call = this.manager.openCall({ sessionId: REPL_SESSION_ID, cwd: this.cwd });
    try {
      return await call.withCheckpoints(step);
    } finally {
      await call.close();
    }
  }

  /** Tab completion from the live namespace of `language`'s kernel (no matches when it has none). */
  async complete(language: CellLanguage, line: string): Promise<{ start: number; matches: string[] }> {
    // Tab before the first JS cell starts the kernel, as that cell would (about 100 ms, once).
    if (language === "js") await this.manager.warm(this.ref("js")).catch(() => undefined);
    return completeInSession(this.manager, this.ref(language), line);
  }

  /** Whether `code` is a whole cell: the kernel decides (Python's codeop, a Jupyter kernel's is_complete). */
  async checkComplete(language: CellLanguage, code: string): Promise<Completeness> {
    const answer = await checkCompleteInSession(this.manager, this.ref(language), code);
    if (answer !== undefined) return answer;
    // The JS kernel cannot judge completeness (its runner has no is_complete request), and before the first JS
    // cell there is no kernel to ask: acorn parses here instead. Others without an answer run what was typed.
    return language === "js" ? checkJsComplete(code) : { status: "complete", indent: "" };
  }

  /** The server language a `:NAME` command names (`R` → `r`), or INVALID_INPUT listing what the server offers. */
  async resolveServerLanguage(name: string): Promise<string> {
    const catalog = await (await this.manager.connectJupyter()).loadCatalog(true);
    const match = catalog.match(name);
    if (!match.ok) throw new EvalkitError("INVALID_INPUT", match.message, { field: "language" });
    return match.language.key;
  }

  /** Replaces the kernel of `language` with a fresh one (state lost); for Python, says which it is. */
  async restart(language: CellLanguage): Promise<PythonDescription | undefined> {
    await restartInSession(this.manager, this.ref(language));
    this.nextCount[language] = 1;
    // Only Python has an interpreter to name (version, executable, pid); JS runs this Node's own binary.
    return language === "py" ? this.describePython() : undefined;
  }

  /** Shuts every kernel down (exit request, then SIGTERM/SIGKILL to its process group). */
  shutdown(): Promise<void> {
    return this.manager.dispose();
  }

  private async describePython(): Promise<PythonDescription> {
    const kernel = await describeSessionKernel(this.manager, this.ref("py"));
    if (this.jupyter) {
      return {
        executable: `${kernel?.implementation ?? "kernel"} on ${this.jupyter.url}`,
        version: kernel?.version ?? "unknown",
        reason: "the Jupyter server's Python kernelspec",
        pid: undefined,
      };
    }
    const resolved = await this.manager.resolveInterpreter(this.cwd);
    return {
      executable: kernel?.executable ?? resolved.executable,
      version: kernel?.version ?? "unknown",
      reason: resolved.reason ?? "",
      pid: kernel?.pid,
    };
  }

  private ref(language: CellLanguage): SessionKernelRef {
    return { sessionId: REPL_SESSION_ID, cwd: this.cwd, language };
  }
}
