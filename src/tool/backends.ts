// Which backends serve cells: enabled by configuration, Python checked by a preflight, and the language per cell.
import type { CellLanguage } from "../contracts/cell-result.js";
import { isEvalkitError } from "../errors.js";
import type { JupyterCatalog } from "../kernel/jupyter/jupyter-catalog.js";
import { resolvePython } from "../runtime/resolve-python.js";

/** A failed Python check is re-run after this long (an interpreter may have been installed meanwhile). */
const PYTHON_FAILURE_TTL_MS = 30_000;

/** What the tool knows about one backend. */
export interface BackendState {
  /** Exposed by configuration (options and EVALKIT_PY / EVALKIT_JS). */
  enabled: boolean;
  /** Enabled and usable as far as the last check knows (Python: preflight passed or not yet checked). */
  available: boolean;
  /** Why it is not available. */
  reason?: string;
  /** Python only: the interpreter the preflight found. */
  executable?: string;
  version?: string;
}

/** What the tool knows about its Jupyter server. */
export interface JupyterBackendState {
  url: string;
  available: boolean;
  /** The language keys cells can use there (`py`, `r`…), with the kernelspec and display name of each. */
  languages: { language: string; kernelName: string; displayName: string }[];
  /** Why it is not available (unreachable, refused token). */
  reason?: string;
}

/** Status of both backends (and of the Jupyter server, when one is configured). */
export interface EvalBackendStatus {
  py: BackendState;
  js: BackendState;
  jupyter?: JupyterBackendState;
}

/** The Jupyter server's languages, as the tool reaches them (the session manager owns the client). */
export interface RemoteLanguages {
  url: string;
  /** The catalog; `refresh` fetches it again when the last fetch is a few seconds old (a kernel was installed). */
  load: (refresh?: boolean) => Promise<JupyterCatalog>;
  /** The catalog when already fetched. */
  known: () => JupyterCatalog | undefined;
}

/** Where one cell runs, or why it cannot. */
export type CellRoute =
  | { kind: "run"; language: CellLanguage; notice?: string }
  | { kind: "unavailable"; language: CellLanguage; ename: string; message: string };

const RUN_PY: CellRoute = Object.freeze({ kind: "run", language: "py" });
const RUN_JS: CellRoute = Object.freeze({ kind: "run", language: "js" });

interface PythonCheck {
  ok: boolean;
  at: number;
  reason?: string;
  executable?: string;
  version?: string;
}

/** Another layer's own interpreter choice (a shared manager's custom resolver or launcher) for a cwd. */
export type InterpreterLookup = (cwd: string) => Promise<{ executable: string; reason?: string }>;

/** Tracks backend availability for one tool and routes cells to a language. */
export class BackendSelector {
  private pythonCheck: PythonCheck | undefined;
  private pending: Promise<PythonCheck> | undefined;
  private readonly remoteRoutes = new Map<string, CellRoute>();

  /**
   * `lookup`, when given, is what picks the interpreter the cells really run (a shared manager with its own
   * resolver): the check asks it instead of running the runtime's search, so `status()` names that interpreter.
   */
  constructor(
    private readonly enabled: readonly CellLanguage[],
    private readonly python: string | undefined,
    private readonly cwd: string,
    private readonly remote: RemoteLanguages | undefined = undefined,
    private readonly lookup: InterpreterLookup | undefined = undefined,
    /** Sandbox-writable directories (a sandboxed tool): nothing there is run by the check (python-untrusted.ts). */
    private readonly untrusted: string[] | undefined = undefined,
  ) {}

  /** Languages exposed by configuration. */
  get enabledLanguages(): readonly CellLanguage[] {
    return this.enabled;
  }

  /** Enabled languages minus Python when its last check failed: what the schema and description advertise. */
  get advertisedLanguages(): CellLanguage[] {
    if (this.remote) {
      const keys = this.remote.known()?.keys ?? ["py"];
      // JS stays local beside a Jupyter server (evalkit's own node), so it is offered even if the server lacks it.
      return this.enabled.includes("js") && !keys.includes("js") ? [...keys, "js"] : keys;
    }
    // Only Python can fail a preflight (no interpreter found); JS runs this Node's own binary.
    const result = this.enabled.filter((l) => l !== "py" || this.pythonCheck?.ok !== false);
    return result.length > 0 ? result : [...this.enabled];
  }

  /** Runs the Python check (cached) and reports both backends. */
  async status(): Promise<EvalBackendStatus> {
    if (this.remote) return this.remoteStatus(this.remote);
    const py: BackendState = { enabled: this.enabled.includes("py"), available: false };
    if (!py.enabled) py.reason = "disabled (option py: false or EVALKIT_PY=0)";
    else {
      const check = await this.checkPython();
      py.available = check.ok;
      if (check.reason !== undefined) py.reason = check.reason;
      if (check.executable !== undefined) py.executable = check.executable;
      if (check.version !== undefined) py.version = check.version;
    }
    // JS needs no check: enabled means available (it runs the host's own node).
    const js: BackendState = { enabled: this.enabled.includes("js"), available: this.enabled.includes("js") };
    if (!js.enabled) js.reason = "disabled (option js: false or EVALKIT_JS=0)";
    return { py, js };
  }

  /**
   * The language a cell runs in. No language: Python, or JS when Python is disabled or fails its preflight.
   * An explicit Python cell with Python unusable is `unavailable` (the cell reports the reason).
   */
  /**
   * The route when it is known without waiting (JS, or Python already checked and usable), else undefined:
   * then {@link route} finds it. Saves every warm cell a promise.
   */
  routeNow(language: CellLanguage | undefined): CellRoute | undefined {
    // JS routes at once (no preflight, local even beside a server); Python waits for its check or the server.
    if (language === "js" && this.enabled.includes("js")) return RUN_JS;
    if (this.isRuntimeLanguage(language)) return { kind: "run", language };
    if (this.remote) return this.remoteRoutes.get(language ?? "py");
    if (!this.enabled.includes("py")) return undefined;
    return this.pythonCheck?.ok === true ? RUN_PY : undefined;
  }

  /**
   * A protocol runtime's language (docs/runtimes.md): enabled and neither Python nor JS, which have routes of their
   * own (Python's preflight, JS as its fallback); a runtime's cells run as they are.
   */
  private isRuntimeLanguage(language: CellLanguage | undefined): language is CellLanguage {
    return (
      language !== undefined && language !== "py" && language !== "js" && this.enabled.includes(language)
    );
  }

  async route(language: CellLanguage | undefined): Promise<CellRoute> {
    if (this.isRuntimeLanguage(language)) return { kind: "run", language };
    // JS stays local beside a Jupyter server; Python (also a cell naming no language) goes to the server.
    if (this.remote && !(language === "js" && this.enabled.includes("js")))
      return this.routeRemote(language ?? "py", this.remote);
    const hasPy = this.enabled.includes("py");
    const hasJs = this.enabled.includes("js");
    // Python is the default and may be unusable (preflight); JS is its fallback for cells naming no language.
    if (language === "js") return { kind: "run", language: "js" };
    if (!hasPy) {
      if (language === undefined && hasJs) return { kind: "run", language: "js" };
      return {
        kind: "unavailable",
        language: "py",
        ename: "PythonUnavailable",
        message: "the Python backend is disabled",
      };
    }
    const check = await this.checkPython();
    if (check.ok) return { kind: "run", language: "py" };
    const reason = check.reason ?? "no usable Python interpreter";
    if (language === undefined && hasJs) {
      return {
        kind: "run",
        language: "js",
        notice: `Python is unavailable (${firstLine(reason)}); this cell ran as JavaScript`,
      };
    }
    const hint = hasJs ? ' JavaScript is available: use language "js".' : "";
    return {
      kind: "unavailable",
      language: "py",
      ename: "PythonUnavailable",
      message: `the Python backend is not available: ${reason}${hint}`,
    };
  }

  /** A language on the Jupyter server: its key (`py`, `r`), or a cell error naming what the server offers. */
  private async routeRemote(language: string, remote: RemoteLanguages): Promise<CellRoute> {
    let catalog: JupyterCatalog;
    try {
      catalog = await remote.load();
    } catch (err) {
      if (!isEvalkitError(err)) throw err;
      return { kind: "unavailable", language, ename: "JupyterUnavailable", message: err.message };
    }
    let match = catalog.match(language);
    if (!match.ok) match = (await remote.load(true).catch(() => catalog)).match(language);
    if (!match.ok)
      return { kind: "unavailable", language, ename: "LanguageUnavailable", message: match.message };
    const route: CellRoute = { kind: "run", language: match.language.key };
    if (this.remoteRoutes.size < 64) this.remoteRoutes.set(language, route);
    return route;
  }

  private async remoteStatus(remote: RemoteLanguages): Promise<EvalBackendStatus> {
    const jupyter: JupyterBackendState = { url: remote.url, available: false, languages: [] };
    try {
      const catalog = await remote.load();
      jupyter.available = true;
      jupyter.languages = catalog.languages.map((l) => ({
        language: l.key,
        kernelName: l.kernelName,
        displayName: l.displayName,
      }));
    } catch (err) {
      if (!isEvalkitError(err)) throw err;
      jupyter.reason = err.message;
    }
    // On a server Python is available when it has a Python kernelspec; JS stays local (available when enabled).
    const served = jupyter.languages.find((l) => l.language === "py");
    const py: BackendState = { enabled: true, available: served !== undefined };
    if (served === undefined)
      py.reason = jupyter.reason ?? `the Jupyter server at ${remote.url} has no Python kernelspec`;
    const hasJs = this.enabled.includes("js");
    const js: BackendState = { enabled: hasJs, available: hasJs };
    if (!hasJs) js.reason = "disabled (option js: false or EVALKIT_JS=0)";
    return { py, js, jupyter };
  }

  private checkPython(): Promise<PythonCheck> {
    const cached = this.pythonCheck;
    if (cached && (cached.ok || Date.now() - cached.at < PYTHON_FAILURE_TTL_MS))
      return Promise.resolve(cached);
    this.pending ??= this.runCheck().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async runCheck(): Promise<PythonCheck> {
    const options: { cwd: string; python?: string; untrusted?: string[] } = { cwd: this.cwd };
    if (this.python !== undefined) options.python = this.python;
    if (this.untrusted !== undefined) options.untrusted = this.untrusted;
    let check: PythonCheck;
    if (this.lookup !== undefined) {
      try {
        const found = await this.lookup(this.cwd);
        check = { ok: true, at: Date.now(), executable: found.executable };
      } catch (err) {
        check = { ok: false, at: Date.now(), reason: err instanceof Error ? err.message : String(err) };
      }
      this.pythonCheck = check;
      return check;
    }
    try {
      const resolved = await resolvePython(options);
      check = { ok: true, at: Date.now(), executable: resolved.executable, version: resolved.version };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!isEvalkitError(err) || err.code === "INTERNAL") throw err;
      check = { ok: false, at: Date.now(), reason: message };
    }
    this.pythonCheck = check;
    return check;
  }
}

function firstLine(text: string): string {
  // Resolution errors end their first line with "Tried:" before the list of candidates; keep the sentence.
  const line = (text.split("\n", 1)[0] ?? text).replace(/\s*Tried:\s*$/, "");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
