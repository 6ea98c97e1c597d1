// Shared shapes of runtime resolution: the chosen interpreter, rejected candidates, the report doctor prints.

import type { PythonSource } from "./python-candidates.js";
import type { ShimKind } from "./resolve-shim.js";

export type { PythonSource } from "./python-candidates.js";

/** The oldest Python evalkit runs on. */
export const MIN_PYTHON_VERSION: readonly [number, number] = [3, 8];

/** A candidate that was looked at and not used. */
export interface RejectedPython {
  candidate: string;
  source: PythonSource;
  reason: string;
  /** Machine-readable reason: missing file, too old, failed to run, timed out, not Python. */
  kind: "missing" | "too-old" | "failed" | "timeout" | "not-python";
}

/** How the kernel's environment must change for the chosen interpreter (a venv's PATH and marker). */
export interface PythonEnvAdditions {
  /** Directories to put in front of PATH, in order. */
  pathPrepend: string[];
  /** Variables to set (VIRTUAL_ENV for a venv, CONDA_PREFIX for conda). */
  set: Record<string, string>;
  /** Inherited variables that would contradict the choice (PYTHONHOME with a venv, a stale VIRTUAL_ENV). */
  unset: string[];
}

/** The interpreter evalkit will run, and why. */
export interface ResolvedPython {
  /** The real binary to spawn (a shim already resolved). */
  executable: string;
  /** "3.11.7", or "unknown" when the preflight was skipped and no version could be read. */
  version: string;
  /** [0, 0, 0] when the version is unknown. */
  versionTuple: [number, number, number];
  /** "cpython", "pypy"...; "unknown" when the preflight was skipped. */
  implementation: string;
  source: PythonSource;
  /** One sentence: why this interpreter was chosen. */
  reason: string;
  /** The file the search found, before shim resolution. */
  candidate: string;
  /** The venv or conda prefix the interpreter belongs to. */
  venv?: string;
  /** Set when `candidate` was a version-manager shim. */
  shim?: { kind: ShimKind; path: string };
  /** False when EVALKIT_PYTHON_SKIP_CHECK / skipCheck skipped running it. */
  checked: boolean;
  /** Milliseconds the preflight took (0 when answered from the cache or skipped). */
  preflightMs: number;
  rejected: RejectedPython[];
  envAdditions: PythonEnvAdditions;
}

/** One line of the doctor report: every step of the search and what became of it. */
export interface PythonCandidateReport {
  source: PythonSource;
  candidate?: string;
  status: "chosen" | "usable" | "rejected" | "absent";
  reason: string;
  executable?: string;
  version?: string;
}

/** Everything `evalkit doctor` shows: the chosen interpreter (if any), every step, the error otherwise. */
export interface PythonReport {
  chosen?: ResolvedPython;
  candidates: PythonCandidateReport[];
  error?: { code: string; message: string };
}
