// Which backends serve cells: enabled by configuration, Python checked by a preflight, and the language per cell.
import type { CellLanguage } from "../contracts/cell-result.js";
import { isEvalkitError } from "../errors.js";
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

/** Status of both backends. */
export interface EvalBackendStatus {
  py: BackendState;
  js: BackendState;
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

/** Tracks backend availability for one tool and routes cells to a language. */
export class BackendSelector {
  private pythonCheck: PythonCheck | undefined;
  private pending: Promise<PythonCheck> | undefined;

  constructor(
    private readonly enabled: readonly CellLanguage[],
    private readonly python: string | undefined,
    private readonly cwd: string,
    /** Sandbox-writable directories (a sandboxed tool): nothing there is run by the check (python-untrusted.ts). */
    private readonly untrusted?: string[],
  ) {}

  /** Languages exposed by configuration. */
  get enabledLanguages(): readonly CellLanguage[] {
    return this.enabled;
  }

  /** Enabled languages minus Python when its last check failed: what the schema and description advertise. */
  get advertisedLanguages(): CellLanguage[] {
    const result = this.enabled.filter((l) => l !== "py" || this.pythonCheck?.ok !== false);
    return result.length > 0 ? result : [...this.enabled];
  }

  /** Runs the Python check (cached) and reports both backends. */
  async status(): Promise<EvalBackendStatus> {
    const py: BackendState = { enabled: this.enabled.includes("py"), available: false };
    if (!py.enabled) py.reason = "disabled (option py: false or EVALKIT_PY=0)";
    else {
      const check = await this.checkPython();
      py.available = check.ok;
      if (check.reason !== undefined) py.reason = check.reason;
      if (check.executable !== undefined) py.executable = check.executable;
      if (check.version !== undefined) py.version = check.version;
    }
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
    if (language === "js") return RUN_JS;
    if (!this.enabled.includes("py")) return undefined;
    return this.pythonCheck?.ok === true ? RUN_PY : undefined;
  }

  async route(language: CellLanguage | undefined): Promise<CellRoute> {
    const hasPy = this.enabled.includes("py");
    const hasJs = this.enabled.includes("js");
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
