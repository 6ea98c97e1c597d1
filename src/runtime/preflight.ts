// The preflight: run a candidate interpreter once, with a timeout, to learn its real path, version and implementation.
import { spawn } from "node:child_process";
import { lookupPreflight, preflightCacheKey, storePreflight } from "./preflight-cache.js";

/** What one successful run of a candidate reported about itself. */
export interface PreflightInfo {
  ok: true;
  /** `sys.executable` as the interpreter printed it (empty when it could not tell). */
  executable: string;
  version: string;
  versionTuple: [number, number, number];
  implementation: string;
  durationMs: number;
  cached: boolean;
}

/** Why a candidate could not be run or did not answer like a Python interpreter. */
export interface PreflightFailure {
  ok: false;
  kind: "spawn-failed" | "timeout" | "exit" | "garbage";
  reason: string;
  durationMs: number;
}

export type PreflightOutcome = PreflightInfo | PreflightFailure;

const MARKER = "evalkit-preflight-1";

// Valid Python 2.7 and 3.x alike, so an old interpreter is reported as too old rather than as broken.
// Bytes go straight to the binary stdout so a non-ASCII path survives a C locale.
const PREFLIGHT_CODE = [
  "import sys",
  "e = sys.executable or ''",
  "try:",
  "    e = e.encode('utf-8', 'surrogateescape')",
  "except Exception:",
  "    pass",
  "v = sys.version_info",
  "i = getattr(getattr(sys, 'implementation', None), 'name', 'cpython')",
  "o = getattr(sys.stdout, 'buffer', sys.stdout)",
  `o.write(b'${MARKER}\\n' + e + ('\\n%d.%d.%d\\n%s\\n' % (v[0], v[1], v[2], i)).encode('ascii'))`,
  "o.flush()",
].join("\n");

/**
 * Flags for the preflight run: -E ignores PYTHON* variables, -s the user site, -S skips `site` (3x faster
 * start). Not -I, which says the same on 3.x: Python 2 does not know it and would answer with its usage text
 * instead of its version, so it could not be named as too old.
 */
export const PREFLIGHT_ARGS = ["-E", "-s", "-S", "-c", PREFLIGHT_CODE] as const;

const OUTPUT_LIMIT = 64 * 1024;

function describeOutput(text: string): string {
  const flat = text.replace(/[\x00-\x1f\x7f]+/g, " ").trim();
  if (flat.length === 0) return "nothing";
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}...` : flat);
}

/** Parses the preflight's stdout; undefined when it is not what the preflight code prints. */
export function parsePreflightOutput(
  stdout: string,
): Omit<PreflightInfo, "durationMs" | "cached"> | undefined {
  const lines = stdout.split(/\r?\n/);
  const start = lines.indexOf(MARKER);
  if (start < 0) return undefined;
  const [executable, version, implementation] = lines.slice(start + 1, start + 4);
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version ?? "");
  if (executable === undefined || match === null || !implementation || !/^\w+$/.test(implementation)) {
    return undefined;
  }
  const versionTuple: [number, number, number] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return { ok: true, executable, version: versionTuple.join("."), versionTuple, implementation };
}

function runOnce(candidate: string, cwd: string, env: Record<string, string>, timeoutMs: number) {
  return new Promise<PreflightOutcome>((resolve) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const detached = process.platform !== "win32";
    let settled = false;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    const finish = (outcome: PreflightOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const child = spawn(candidate, [...PREFLIGHT_ARGS], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached,
      windowsHide: true,
    });
    const killTree = () => {
      try {
        // A fake interpreter may have children holding the pipes open; kill its whole process group.
        if (detached && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      killTree();
      finish({
        ok: false,
        kind: "timeout",
        reason: `did not answer within ${timeoutMs} ms`,
        durationMs: elapsed(),
      });
    }, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (size >= OUTPUT_LIMIT) return;
      into.push(chunk);
      size += chunk.length;
    };
    child.stdout.on("data", collect(stdout));
    child.stderr.on("data", collect(stderr));
    child.on("error", (err: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        kind: "spawn-failed",
        reason: `could not be started (${err.code ?? err.message})`,
        durationMs: elapsed(),
      });
    });
    child.on("close", (code, signal) => {
      const out = Buffer.concat(stdout).toString("utf8");
      const err = Buffer.concat(stderr).toString("utf8");
      if (code !== 0) {
        const status = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const tail = err.trim().split(/\r?\n/).slice(-2).join(" ");
        const why = tail ? `: ${describeOutput(tail)}` : "";
        finish({ ok: false, kind: "exit", reason: `${status}${why}`, durationMs: elapsed() });
        return;
      }
      const parsed = parsePreflightOutput(out);
      if (parsed === undefined) {
        finish({
          ok: false,
          kind: "garbage",
          reason: `is not a Python interpreter: it printed ${describeOutput(out)}`,
          durationMs: elapsed(),
        });
        return;
      }
      finish({ ...parsed, durationMs: elapsed(), cached: false });
    });
  });
}

/** Options for one preflight run. */
export interface PreflightOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Shims depend on cwd and environment (their version files), so their answers are never cached. */
  cacheable: boolean;
  /** File that keeps successful answers across processes; undefined keeps them in memory only. */
  diskCacheFile?: string;
}

/** Runs `candidate` once (or answers from the cache) and reports what it is. */
export async function runPreflight(candidate: string, options: PreflightOptions): Promise<PreflightOutcome> {
  const key = options.cacheable ? preflightCacheKey(candidate) : undefined;
  const hit = key === undefined ? undefined : lookupPreflight(key, options.diskCacheFile);
  if (hit !== undefined) return { ...hit, cached: true, durationMs: 0 };
  const outcome = await runOnce(candidate, options.cwd, options.env, options.timeoutMs);
  // Only successes are cached: a timeout may be a loaded machine, a failure may be fixed a second later.
  if (outcome.ok && key !== undefined) {
    const { durationMs: _duration, cached: _cached, ...info } = outcome;
    storePreflight(key, info, options.diskCacheFile);
  }
  return outcome;
}
