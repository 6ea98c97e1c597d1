// Kernel specs for a manager's calls: the interpreter's resolution cached per cwd, and the last Python spec
// reused while nothing it depends on changed (every warm cell asks for one).
import type { CellLanguage } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import type { JupyterServer } from "../kernel/jupyter/jupyter-server.js";
import { findRuntime, type RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import { buildPlainEnv } from "./default-kernels.js";
import type {
  InterpreterResolver,
  KernelSpec,
  ResolvedInterpreter,
  SessionManagerSettings,
} from "./session-types.js";

/** What a spec is built from: the manager's settled options. */
export interface SpecSettings {
  resolveInterpreter: InterpreterResolver;
  resolveCacheMs: number;
  extraEnv: Record<string, string>;
  launcher: string[] | undefined;
  interruptGraceMs: number;
  sandbox: SessionManagerSettings["sandbox"];
  limits: SessionManagerSettings["limits"];
  checkpoints?: boolean;
  /** The Jupyter server every language but `js` runs on, when one is configured. */
  jupyter?: (() => Promise<JupyterServer>) | undefined;
  /** Protocol runtimes (docs/runtimes.md): their languages run locally, before a Jupyter server is asked. */
  runtimes?: readonly RuntimeSpec[];
}

/** Describes the kernel a (language, session, cwd) needs, without re-resolving Python for every cell. */
export class KernelSpecCache {
  private readonly resolutions = new Map<
    string,
    { at: number; result: Promise<ResolvedInterpreter>; value?: ResolvedInterpreter }
  >();
  private lastPySpec: { resolved: ResolvedInterpreter; sessionId: string; spec: KernelSpec } | undefined;
  /** Specs of kernels on the Jupyter server, per session, cwd and language (their kernelspec does not change). */
  private readonly remoteSpecs = new Map<string, KernelSpec>();

  constructor(private readonly options: SpecSettings) {}

  async describeSpec(language: CellLanguage, sessionId: string, cwd: string): Promise<KernelSpec> {
    const runtime = this.findRuntime(language);
    if (runtime !== undefined) return this.describeRuntimeSpec(runtime, sessionId, cwd);
    // JS stays local beside a Jupyter server: its kernel is evalkit's own node process, no server's kernelspec.
    if (language !== "js" && this.options.jupyter !== undefined)
      return this.describeRemoteSpec(language, sessionId, cwd, this.options.jupyter);
    // Python and JS are built in; any other language needs a server or a runtime description.
    if (language !== "py" && language !== "js") {
      throw new EvalkitError(
        "INVALID_INPUT",
        `language ${JSON.stringify(language)} needs a Jupyter server or a runtime: configure a server (--jupyter URL, ` +
          "EVALKIT_JUPYTER_URL or the option jupyter: { url }) or describe a runner (the option runtimes, " +
          'docs/runtimes.md); without one cells run in "py" or "js"',
        { field: "language" },
      );
    }
    // Only Python resolves an interpreter per cwd (venvs, PATH); JS runs the host's own node.
    if (language === "py") {
      // The same resolution (cached for resolveCacheMs) gives the same spec: every warm cell asks for it.
      const resolved = await this.resolveCached(cwd);
      const last = this.lastPySpec;
      if (
        last !== undefined &&
        last.resolved === resolved &&
        last.sessionId === sessionId &&
        last.spec.cwd === cwd
      )
        return last.spec;
      const spec: KernelSpec = {
        ...this.describeBase(language, sessionId, cwd),
        interpreter: resolved.executable,
        env: resolved.env,
      };
      this.lastPySpec = { resolved, sessionId, spec };
      return spec;
    }
    return {
      ...this.describeBase(language, sessionId, cwd),
      interpreter: undefined,
      env: buildPlainEnv(this.options.extraEnv),
    };
  }

  /**
   * The spec {@link describeSpec} would resolve to, when that is already known: the interpreter's resolution is
   * cached and settled, and its spec was built. Otherwise undefined (then describeSpec finds it).
   */
  describeSpecNow(language: CellLanguage, sessionId: string, cwd: string): KernelSpec | undefined {
    if (this.findRuntime(language) !== undefined) return undefined;
    // As in describeSpec: JS stays local beside a server, and only Python has a cached resolution to reuse.
    if (this.options.jupyter !== undefined && language !== "js")
      return this.remoteSpecs.get(remoteKey(language, sessionId, cwd));
    if (language !== "py") return undefined;
    const cached = this.resolutions.get(cwd);
    if (cached?.value === undefined || Date.now() - cached.at >= this.options.resolveCacheMs)
      return undefined;
    const last = this.lastPySpec;
    if (
      last === undefined ||
      last.resolved !== cached.value ||
      last.sessionId !== sessionId ||
      last.spec.cwd !== cwd
    )
      return undefined;
    return last.spec;
  }

  /** The language of a protocol runtime, found fast: most managers have none. */
  private findRuntime(language: CellLanguage): RuntimeSpec | undefined {
    const runtimes = this.options.runtimes;
    if (runtimes === undefined || runtimes.length === 0) return undefined;
    return findRuntime(runtimes, language);
  }

  /** A protocol runner's kernel: no interpreter to resolve, the filtered environment (as JS's). */
  private describeRuntimeSpec(runtime: RuntimeSpec, sessionId: string, cwd: string): KernelSpec {
    return {
      ...this.describeBase(runtime.name, sessionId, cwd),
      interpreter: undefined,
      env: buildPlainEnv(this.options.extraEnv),
      runtime,
    };
  }

  /** A kernel on the server: the kernelspec that serves the language; no interpreter, no local environment. */
  private async describeRemoteSpec(
    language: CellLanguage,
    sessionId: string,
    cwd: string,
    connect: () => Promise<JupyterServer>,
  ): Promise<KernelSpec> {
    const key = remoteKey(language, sessionId, cwd);
    const known = this.remoteSpecs.get(key);
    if (known) return known;
    const server = await connect();
    const kernelName = await server.kernelNameFor(language);
    if (kernelName === undefined) {
      const catalog = await server.loadCatalog();
      throw new EvalkitError("INVALID_INPUT", catalog.describeMissing(language), {
        field: "language",
        languages: catalog.keys,
      });
    }
    const spec: KernelSpec = {
      ...this.describeBase(language, sessionId, cwd),
      interpreter: undefined,
      // The server starts the kernel with its own environment: nothing of the host's reaches it.
      env: {},
      jupyter: { server, kernelName },
    };
    if (this.remoteSpecs.size >= 256) this.remoteSpecs.clear();
    this.remoteSpecs.set(key, spec);
    return spec;
  }

  private describeBase(language: CellLanguage, sessionId: string, cwd: string) {
    return {
      language,
      cwd,
      sessionId,
      launcher: this.options.launcher,
      interruptGraceMs: this.options.interruptGraceMs,
      ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
      ...(this.options.limits ? { limits: this.options.limits } : {}),
      // Only the Python runner can fork a parked copy of its interpreter (docs/checkpoints.md).
      ...(this.options.checkpoints === true && language === "py" ? { checkpoints: true } : {}),
    };
  }

  /** The interpreter the kernels for `cwd` run (the same cached resolution a kernel start uses). */
  resolveInterpreter(cwd: string): Promise<ResolvedInterpreter> {
    return this.resolveCached(cwd);
  }

  /**
   * Interpreter resolution looks at venvs and PATH (milliseconds of file system work), too slow to repeat
   * for every warm cell; a short-lived cache per cwd keeps warm calls fast while a new `.venv` is still
   * picked up within seconds.
   */
  private resolveCached(cwd: string): Promise<ResolvedInterpreter> {
    const now = Date.now();
    const cached = this.resolutions.get(cwd);
    if (cached && now - cached.at < this.options.resolveCacheMs) return cached.result;
    const result = this.options.resolveInterpreter(cwd);
    const entry: { at: number; result: Promise<ResolvedInterpreter>; value?: ResolvedInterpreter } = {
      at: now,
      result,
    };
    this.resolutions.set(cwd, entry);
    result.then(
      (value) => {
        entry.value = value;
      },
      () => {
        if (this.resolutions.get(cwd) === entry) this.resolutions.delete(cwd);
      },
    );
    if (this.resolutions.size > 256) {
      for (const [key, value] of this.resolutions)
        if (now - value.at >= this.options.resolveCacheMs) this.resolutions.delete(key);
    }
    return result;
  }
}

function remoteKey(language: string, sessionId: string, cwd: string): string {
  return `${sessionId}\0${cwd}\0${language}`;
}
