// The interpreter search order as a list of candidates: explicit, VIRTUAL_ENV, CONDA_PREFIX, cwd venvs, managed venv, PATH.
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import {
  findAllOnPath,
  findInterpreterInPrefix,
  isDirectory,
  isExecutableFile,
  type RuntimePlatform,
} from "./find-executable.js";
import { withoutUntrusted } from "./python-untrusted.js";

/** Where a candidate interpreter came from, in search order. */
export type PythonSource = "explicit" | "VIRTUAL_ENV" | "CONDA_PREFIX" | "cwd-venv" | "managed-venv" | "PATH";

/** One step of the search: an interpreter file to check, or a note that this step had nothing. */
export interface PythonCandidate {
  source: PythonSource;
  /** The interpreter file to run; undefined when the step found nothing. */
  candidate?: string;
  /** Why this candidate is in the list, for "chosen because" and for error messages. */
  origin: string;
  /** The environment prefix the candidate belongs to, when it was found through one. */
  venv?: string;
  venvKind?: "venv" | "conda";
  /** When `candidate` is undefined: why. */
  absentReason?: string;
  /** True when the step's absence is worth reporting as a rejection (a variable points at nothing). */
  isBrokenPointer?: boolean;
  /** An explicit interpreter in a sandbox-writable directory: never run on the host (python-untrusted.ts). */
  isUntrusted?: boolean;
}

/** Inputs of the search. */
export interface CandidateContext {
  explicit?: { value: string; origin: "option" | "EVALKIT_PYTHON" };
  cwd: string;
  env: NodeJS.ProcessEnv;
  evalkitHome: string;
  platform: RuntimePlatform;
  /** Sources to leave out (setup leaves out the managed venv it is about to create). */
  excludeSources?: PythonSource[];
  /** Directories a sandboxed cell can write: nothing found there is run on the host (python-untrusted.ts). */
  untrusted?: string[];
}

/** The managed venv evalkit creates with `evalkit setup python`. */
export function managedVenvPath(evalkitHome: string): string {
  return path.join(evalkitHome, "python-env");
}

/** The venv root containing `interpreter` (its `pyvenv.cfg` sits one level above `bin`), if any. */
export function findVenvOfInterpreter(interpreter: string): string | undefined {
  const root = path.dirname(path.dirname(interpreter));
  try {
    readFileSync(path.join(root, "pyvenv.cfg"));
    return root;
  } catch {
    return undefined;
  }
}

/** The Python version a venv records in `pyvenv.cfg` (used when the preflight is skipped). */
export function readVenvVersion(venv: string): [number, number, number] | undefined {
  try {
    const text = readFileSync(path.join(venv, "pyvenv.cfg"), "utf8");
    const match = /^\s*version(?:_info)?\s*=\s*(\d+)\.(\d+)\.(\d+)/m.exec(text);
    return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
  } catch {
    return undefined;
  }
}

function prefixCandidate(
  source: PythonSource,
  prefix: string,
  origin: string,
  kind: "venv" | "conda",
  platform: RuntimePlatform,
  isPointer: boolean,
): PythonCandidate {
  if (!isDirectory(prefix)) {
    return { source, origin, absentReason: `${prefix} does not exist`, isBrokenPointer: isPointer };
  }
  const candidate = findInterpreterInPrefix(prefix, platform);
  if (candidate === undefined) {
    return {
      source,
      origin,
      venv: prefix,
      absentReason: `no python executable in ${prefix}`,
      isBrokenPointer: true,
    };
  }
  return { source, candidate, origin, venv: prefix, venvKind: kind };
}

function resolveExplicit(ctx: CandidateContext, value: string, origin: string): PythonCandidate {
  const hasSeparator = value.includes("/") || (ctx.platform === "win32" && value.includes("\\"));
  const candidate = hasSeparator
    ? path.resolve(ctx.cwd, value)
    : findAllOnPath(value, ctx.env, { platform: ctx.platform })[0];
  if (candidate === undefined) {
    return { source: "explicit", origin, absentReason: `${value} is not on PATH`, isBrokenPointer: true };
  }
  if (!isExecutableFile(candidate, ctx.platform)) {
    const why = isDirectory(candidate) ? "is a directory" : "does not exist or is not executable";
    return { source: "explicit", origin, absentReason: `${candidate} ${why}`, isBrokenPointer: true };
  }
  const venv = findVenvOfInterpreter(candidate);
  return venv === undefined
    ? { source: "explicit", candidate, origin }
    : { source: "explicit", candidate, origin, venv, venvKind: "venv" };
}

// Two spellings of one file (/bin/python3 and /usr/bin/python3 on a merged-/usr system) are one candidate.
// The directory is resolved, not the file: a venv's python is a symlink to the base one but is not the same.
function identityOf(file: string): string {
  try {
    return path.join(realpathSync(path.dirname(file)), path.basename(file));
  } catch {
    return file;
  }
}

/** Every candidate in search order (one `explicit` entry when an interpreter was named). Touches only the file system. */
export function listPythonCandidates(ctx: CandidateContext): PythonCandidate[] {
  if (ctx.explicit !== undefined) {
    const origin =
      ctx.explicit.origin === "option"
        ? `named explicitly (${ctx.explicit.value}); the search is skipped`
        : `named by EVALKIT_PYTHON (${ctx.explicit.value}); the search is skipped`;
    return withoutUntrusted([resolveExplicit(ctx, ctx.explicit.value, origin)], ctx.untrusted ?? []);
  }
  const { env, cwd, platform } = ctx;
  const list: PythonCandidate[] = [];
  const activated = [
    ["VIRTUAL_ENV", "virtual environment", "venv"],
    ["CONDA_PREFIX", "conda environment", "conda"],
  ] as const;
  for (const [variable, what, kind] of activated) {
    const value = env[variable];
    if (!value) {
      list.push({ source: variable, origin: variable, absentReason: `${variable} is not set` });
      continue;
    }
    const prefix = path.resolve(cwd, value);
    list.push(
      prefixCandidate(
        variable,
        prefix,
        `${variable} names the active ${what} ${prefix}`,
        kind,
        platform,
        true,
      ),
    );
  }
  for (const name of [".venv", "venv"]) {
    const prefix = path.join(cwd, name);
    list.push(
      prefixCandidate(
        "cwd-venv",
        prefix,
        `a virtual environment in the working directory (${prefix})`,
        "venv",
        platform,
        false,
      ),
    );
  }
  const managed = managedVenvPath(ctx.evalkitHome);
  list.push(
    prefixCandidate(
      "managed-venv",
      managed,
      `evalkit's managed virtual environment (${managed})`,
      "venv",
      platform,
      false,
    ),
  );
  let foundOnPath = false;
  for (const name of ["python3", "python"]) {
    for (const file of findAllOnPath(name, env, { platform })) {
      foundOnPath = true;
      const venv = findVenvOfInterpreter(file);
      const origin = `${name} on PATH (${file})`;
      list.push(
        venv === undefined
          ? { source: "PATH", candidate: file, origin }
          : { source: "PATH", candidate: file, origin, venv, venvKind: "venv" },
      );
    }
  }
  if (!foundOnPath)
    list.push({ source: "PATH", origin: "PATH", absentReason: "neither python3 nor python is on PATH" });
  const excluded = new Set(ctx.excludeSources ?? []);
  const seen = new Set<string>();
  return withoutUntrusted(list, ctx.untrusted ?? []).filter((entry) => {
    if (excluded.has(entry.source)) return false;
    if (entry.candidate === undefined) return true;
    const identity = identityOf(entry.candidate);
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}
