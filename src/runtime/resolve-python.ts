// Chooses the Python interpreter: walk the candidates in order, run each once (cached), take the first that works.
import path from "node:path";
import * as z from "zod";
import { lazySchema, PARSE_ONCE } from "../contracts/lazy-schema.js";
import { EvalkitError } from "../errors.js";
import { computeEnvAdditions } from "./child-env.js";
import { filterEnv } from "./env-filter.js";
import { resolveEvalkitHome } from "./evalkit-home.js";
import { isDirectory, isExecutableFile, type RuntimePlatform } from "./find-executable.js";
import { runPreflight } from "./preflight.js";
import {
  type CandidateContext,
  listPythonCandidates,
  type PythonCandidate,
  type PythonSource,
  readVenvVersion,
} from "./python-candidates.js";
import {
  MIN_PYTHON_VERSION,
  type PythonCandidateReport,
  type PythonReport,
  type RejectedPython,
  type ResolvedPython,
} from "./python-types.js";
import { expandRoots } from "./python-untrusted.js";
import { detectShim, inspectShim } from "./resolve-shim.js";

/** Default preflight timeout: a real interpreter answers in tens of milliseconds; a hung one is rejected. */
export const DEFAULT_PREFLIGHT_TIMEOUT_MS = 5000;

const sourceNames = ["explicit", "VIRTUAL_ENV", "CONDA_PREFIX", "cwd-venv", "managed-venv", "PATH"] as const;

const resolveOptionsSchema = lazySchema(() =>
  z.object({
    python: z.string().min(1).optional(),
    cwd: z.string().min(1).optional(),
    // Checked for shape only: copying every variable through a record schema costs more than the lookup itself.
    env: z
      .custom<NodeJS.ProcessEnv>((value) => typeof value === "object" && value !== null, "expected an object")
      .optional(),
    evalkitHome: z.string().min(1).optional(),
    skipCheck: z.boolean().optional(),
    preflightTimeoutMs: z.number().int().positive().optional(),
    excludeSources: z.array(z.enum(sourceNames)).optional(),
    persistentCache: z.boolean().optional(),
    platform: z.string().optional(),
    untrusted: z.array(z.string().min(1)).optional(),
  }),
);

/** Options of {@link resolvePython} and {@link describeCandidates}. */
export interface ResolvePythonOptions {
  /** An explicit interpreter (path, or a name looked up on PATH); skips the search. Else EVALKIT_PYTHON. */
  python?: string;
  /** Working directory: where `.venv`/`venv` and pyenv's `.python-version` are looked for. Default process.cwd(). */
  cwd?: string;
  /** The environment to read (VIRTUAL_ENV, PATH, EVALKIT_*...). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default `$EVALKIT_HOME`, else `~/.evalkit`. */
  evalkitHome?: string;
  /** Do not run candidates (also EVALKIT_PYTHON_SKIP_CHECK=1): the first existing one wins, version unknown. */
  skipCheck?: boolean;
  /** Per-candidate preflight timeout in ms (default 5000). */
  preflightTimeoutMs?: number;
  /**
   * Keep successful preflights in `$EVALKIT_HOME/cache/python-preflight.json` so the next process skips
   * them too (default true; EVALKIT_PYTHON_CACHE=0 turns it off).
   */
  persistentCache?: boolean;
  /** Search steps to leave out. */
  excludeSources?: PythonSource[];
  /** Target platform rules (tests). Default process.platform. */
  platform?: NodeJS.Platform;
  /**
   * Directories a sandboxed cell can write (the cwd, `sandbox.writable`): an interpreter or venv found there is
   * skipped, and an explicit one there is used without a preflight, so nothing a cell wrote runs on the host.
   */
  untrusted?: string[];
}

interface SearchContext extends CandidateContext {
  skipCheck: boolean;
  timeoutMs: number;
  diskCacheFile?: string;
}

type CheckResult = { ok: true; resolved: ResolvedPython } | { ok: false; rejected: RejectedPython };

function isTruthyFlag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

function buildContext(options: ResolvePythonOptions): SearchContext {
  const parsed = resolveOptionsSchema().safeParse(options, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "options";
    throw new EvalkitError("INVALID_INPUT", `Invalid ${field}: ${issue?.message ?? "bad value"}`, { field });
  }
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (!isDirectory(cwd)) {
    throw new EvalkitError("CWD_INVALID", `Working directory ${cwd} does not exist or is not a directory`, {
      cwd,
    });
  }
  const explicitValue = options.python ?? (env.EVALKIT_PYTHON || undefined);
  const ctx: SearchContext = {
    cwd,
    env,
    evalkitHome: path.resolve(options.evalkitHome ?? resolveEvalkitHome(env)),
    platform: (options.platform ?? process.platform) as RuntimePlatform,
    skipCheck: options.skipCheck ?? isTruthyFlag(env.EVALKIT_PYTHON_SKIP_CHECK),
    timeoutMs: options.preflightTimeoutMs ?? DEFAULT_PREFLIGHT_TIMEOUT_MS,
  };
  if (explicitValue !== undefined) {
    ctx.explicit = {
      value: explicitValue,
      origin: options.python !== undefined ? "option" : "EVALKIT_PYTHON",
    };
  }
  if (options.excludeSources) ctx.excludeSources = options.excludeSources;
  if (options.untrusted) ctx.untrusted = expandRoots(options.untrusted.map((p) => path.resolve(cwd, p)));
  const cacheFlag = env.EVALKIT_PYTHON_CACHE;
  if (options.persistentCache ?? !(cacheFlag !== undefined && /^(0|false|no|off)$/i.test(cacheFlag.trim()))) {
    ctx.diskCacheFile = path.join(ctx.evalkitHome, "cache", "python-preflight.json");
  }
  return ctx;
}

function formatVersion(tuple: readonly number[]): string {
  return tuple.join(".");
}

function isTooOld(tuple: readonly [number, number, number]): boolean {
  const [major, minor] = tuple;
  return major < MIN_PYTHON_VERSION[0] || (major === MIN_PYTHON_VERSION[0] && minor < MIN_PYTHON_VERSION[1]);
}

async function checkCandidate(
  entry: PythonCandidate & { candidate: string },
  ctx: SearchContext,
): Promise<CheckResult> {
  const shim = inspectShim(entry.candidate, ctx.cwd, ctx.env, ctx.platform);
  const target = shim?.resolved ?? entry.candidate;
  const reject = (kind: RejectedPython["kind"], reason: string): CheckResult => ({
    ok: false,
    rejected: { candidate: entry.candidate, source: entry.source, reason, kind },
  });
  let executable = target;
  let versionTuple: [number, number, number] = [0, 0, 0];
  let implementation = "unknown";
  let preflightMs = 0;
  if (ctx.skipCheck || entry.isUntrusted) {
    const fromName = shim?.version ? /^(\d+)\.(\d+)\.(\d+)$/.exec(shim.version) : null;
    const known = entry.venv ? readVenvVersion(entry.venv) : undefined;
    versionTuple =
      known ?? (fromName ? [Number(fromName[1]), Number(fromName[2]), Number(fromName[3])] : [0, 0, 0]);
  } else {
    const outcome = await runPreflight(target, {
      cwd: ctx.cwd,
      // Only what the kernel would see (no secrets), plus what other version managers' shims need.
      env: filterEnv(ctx.env, { allow: ["ASDF_*", "MISE_*"] }),
      timeoutMs: ctx.timeoutMs,
      cacheable: shim === undefined || shim.resolved !== undefined,
      ...(ctx.diskCacheFile ? { diskCacheFile: ctx.diskCacheFile } : {}),
    });
    if (!outcome.ok) {
      const kind =
        outcome.kind === "timeout" ? "timeout" : outcome.kind === "garbage" ? "not-python" : "failed";
      return reject(kind, `${target} ${outcome.reason}`);
    }
    if (isTooOld(outcome.versionTuple)) {
      const min = formatVersion(MIN_PYTHON_VERSION);
      return reject(
        "too-old",
        `${target} is Python ${outcome.version}, too old: evalkit needs ${min} or newer`,
      );
    }
    versionTuple = outcome.versionTuple;
    implementation = outcome.implementation;
    preflightMs = outcome.durationMs;
    // A shim we could not resolve by reading files tells us the real binary through sys.executable.
    const reported = outcome.executable;
    if (
      shim &&
      !shim.resolved &&
      reported &&
      isExecutableFile(reported, ctx.platform) &&
      !detectShim(reported)
    ) {
      executable = reported;
    }
  }
  const known = versionTuple.some((part) => part > 0);
  let reason = entry.origin;
  if (shim) {
    const what = shim.version ? ` for ${shim.version}` : "";
    reason +=
      executable !== entry.candidate
        ? `; ${shim.kind} shim${what} resolved to ${executable}`
        : `; a ${shim.kind} shim`;
  }
  const resolved: ResolvedPython = {
    executable,
    version: known ? formatVersion(versionTuple) : "unknown",
    versionTuple,
    implementation,
    source: entry.source,
    reason,
    candidate: entry.candidate,
    checked: !ctx.skipCheck && entry.isUntrusted !== true,
    preflightMs,
    rejected: [],
    envAdditions: { pathPrepend: [], set: {}, unset: [] },
  };
  if (entry.venv) resolved.venv = entry.venv;
  if (shim) resolved.shim = { kind: shim.kind, path: shim.shim };
  resolved.envAdditions = computeEnvAdditions(resolved, entry.venvKind ?? "venv", ctx.platform);
  return { ok: true, resolved };
}

interface SearchOutcome {
  chosen?: ResolvedPython;
  report: PythonCandidateReport[];
  rejected: RejectedPython[];
}

async function searchPython(ctx: SearchContext, exhaustive: boolean): Promise<SearchOutcome> {
  const outcome: SearchOutcome = { report: [], rejected: [] };
  for (const entry of listPythonCandidates(ctx)) {
    if (outcome.chosen && !exhaustive) break;
    if (entry.candidate === undefined) {
      const reason = entry.absentReason ?? "nothing found";
      outcome.report.push({
        source: entry.source,
        status: entry.isBrokenPointer ? "rejected" : "absent",
        reason,
      });
      if (entry.isBrokenPointer) {
        outcome.rejected.push({
          candidate: entry.venv ?? entry.origin,
          source: entry.source,
          reason,
          kind: "missing",
        });
      }
      continue;
    }
    const result = await checkCandidate({ ...entry, candidate: entry.candidate }, ctx);
    const line: PythonCandidateReport = {
      source: entry.source,
      candidate: entry.candidate,
      status: "rejected",
      reason: "",
    };
    if (result.ok) {
      line.status = outcome.chosen ? "usable" : "chosen";
      line.reason = result.resolved.reason;
      line.executable = result.resolved.executable;
      line.version = result.resolved.version;
      if (!outcome.chosen) {
        // Only what was rejected on the way to the choice belongs to it; exhaustive extras stay in the report.
        result.resolved.rejected = [...outcome.rejected];
        outcome.chosen = result.resolved;
      }
    } else {
      line.reason = result.rejected.reason;
      outcome.rejected.push(result.rejected);
    }
    outcome.report.push(line);
  }
  return outcome;
}

/** The reason the one explicit candidate was rejected (its version and the minimum, say), for the first line. */
function explicitReason(outcome: SearchOutcome): string {
  const reason = outcome.report[0]?.reason;
  return reason === undefined ? "" : `: ${reason}`;
}

function notFoundError(ctx: SearchContext, outcome: SearchOutcome): EvalkitError {
  const tried = outcome.report.map((line) => `  - ${line.source}: ${line.reason}`).join("\n");
  const allTooOld = outcome.rejected.length > 0 && outcome.rejected.every((r) => r.kind === "too-old");
  const code = allTooOld ? "PYTHON_TOO_OLD" : "PYTHON_NOT_FOUND";
  const min = formatVersion(MIN_PYTHON_VERSION);
  const head = ctx.explicit
    ? `The Python interpreter ${ctx.explicit.origin === "option" ? "named explicitly" : "named by EVALKIT_PYTHON"} (${ctx.explicit.value}) cannot be used${explicitReason(outcome)}.`
    : `No usable Python interpreter (${min} or newer) was found.`;
  const hint = ctx.explicit
    ? "Name a working Python 3.8+ interpreter, or leave it out to let evalkit search."
    : "Install Python 3.8+, run `evalkit setup python`, or name an interpreter with --python / EVALKIT_PYTHON.";
  return new EvalkitError(code, `${head} Tried:\n${tried}\n${hint}`, {
    tried: outcome.report,
    rejected: outcome.rejected,
  });
}

/**
 * Finds the Python interpreter to run: an explicit one (option, else EVALKIT_PYTHON) or the first working one
 * of VIRTUAL_ENV, CONDA_PREFIX, `<cwd>/.venv`, `<cwd>/venv`, the managed venv, `python3`/`python` on PATH.
 * Throws EvalkitError PYTHON_NOT_FOUND (message lists what was tried) or PYTHON_TOO_OLD.
 */
export async function resolvePython(options: ResolvePythonOptions = {}): Promise<ResolvedPython> {
  const ctx = buildContext(options);
  const outcome = await searchPython(ctx, false);
  if (outcome.chosen === undefined) throw notFoundError(ctx, outcome);
  return outcome.chosen;
}

/**
 * Checks every candidate (not only up to the first that works) and reports each one, for `evalkit doctor`.
 * Never throws for a missing interpreter: the report carries the error instead.
 */
export async function describeCandidates(options: ResolvePythonOptions = {}): Promise<PythonReport> {
  const ctx = buildContext(options);
  const outcome = await searchPython(ctx, true);
  const report: PythonReport = { candidates: outcome.report };
  if (outcome.chosen) report.chosen = outcome.chosen;
  else {
    const error = notFoundError(ctx, outcome);
    report.error = { code: error.code, message: error.message };
  }
  return report;
}
