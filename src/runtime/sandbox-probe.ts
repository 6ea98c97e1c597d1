// Whether a sandbox can be had here (bwrap installed and able to make namespaces), and if not, why in plain words.
import { spawn } from "node:child_process";
import { EvalkitError } from "../errors.js";
import { findOnPath } from "./find-executable.js";

/** The answer of {@link probeSandbox}. */
export type SandboxProbe = { ok: true; bwrap: string; sizedTmpfs: boolean } | { ok: false; reason: string };

/** A usable sandbox: the bwrap to run and whether it can cap a tmpfs's size (`--size`, not in older bubblewrap). */
export interface SandboxFeatures {
  bwrap: string;
  sizedTmpfs: boolean;
}

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
const PROBE_TIMEOUT_MS = 10_000;

/** One probe per bwrap path and process: the answer does not change while evalkit runs. */
const cache = new Map<string, Promise<SandboxProbe>>();
/** The probe each PATH value led to. */
const byPath = new Map<string, Promise<SandboxProbe>>();

/**
 * Finds `bwrap` on PATH and runs it once with the namespaces a kernel gets (`true` inside), so a machine where
 * user namespaces are off is found before a kernel start fails with a cryptic message.
 */
export function probeSandbox(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxProbe> {
  if (platform !== "linux") {
    return Promise.resolve({
      ok: false,
      reason: `the sandbox needs Linux with bubblewrap; this system is ${platform} (run evalkit in a Linux VM or container to sandbox kernels)`,
    });
  }
  // Every sandboxed call asks: searching PATH each time cost ~0.3 ms of a warm round trip, so a PATH that
  // found bwrap is remembered (one that did not is searched again, so an installed bwrap is seen).
  const path = env.PATH ?? "";
  const known = byPath.get(path);
  if (known !== undefined) return known;
  const bwrap = findOnPath("bwrap", env);
  if (bwrap === undefined) {
    return Promise.resolve({ ok: false, reason: `bwrap was not found on PATH: ${INSTALL_HINT}` });
  }
  let pending = cache.get(bwrap);
  if (pending === undefined) {
    pending = tryBwrap(bwrap);
    cache.set(bwrap, pending);
  }
  byPath.set(path, pending);
  return pending;
}

/** The bwrap to use, or SANDBOX_UNAVAILABLE naming what is missing. Never a silent fallback to no sandbox. */
export async function requireSandbox(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await requireSandboxFeatures(env)).bwrap;
}

/** {@link requireSandbox} with what this bwrap can do. */
export async function requireSandboxFeatures(env: NodeJS.ProcessEnv = process.env): Promise<SandboxFeatures> {
  const probe = await probeSandbox(env);
  if (probe.ok) return { bwrap: probe.bwrap, sizedTmpfs: probe.sizedTmpfs };
  throw new EvalkitError(
    "SANDBOX_UNAVAILABLE",
    `a sandbox was asked for but is not available: ${probe.reason}`,
    {
      reason: probe.reason,
    },
  );
}

/** Probes with a sized tmpfs first; a bwrap too old for `--size` is probed again without it. */
async function tryBwrap(bwrap: string): Promise<SandboxProbe> {
  const sized = await runProbe(bwrap, ["--size", "1048576", "--tmpfs", "/tmp"]);
  if (sized.ok || !/--size/.test(sized.reason)) return sized;
  const plain = await runProbe(bwrap, []);
  return plain.ok ? { ...plain, sizedTmpfs: false } : plain;
}

function runProbe(bwrap: string, extra: string[]): Promise<SandboxProbe> {
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...extra,
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--",
    "true",
  ];
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(bwrap, args, { stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `${bwrap} could not be run (${err.message}): ${INSTALL_HINT}` });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve({ ok: true, bwrap, sizedTmpfs: extra.length > 0 });
        return;
      }
      const said = stderr.trim().split("\n").pop() ?? "";
      const why = said || (signal ? `killed by ${signal}` : `exit code ${code}`);
      resolve({
        ok: false,
        reason: `${bwrap} cannot create a sandbox here (${why}); ${namespaceHint(said)}`,
      });
    });
  });
}

function namespaceHint(message: string): string {
  if (/namespace|permission|operation not permitted/i.test(message)) {
    return "unprivileged user namespaces look disabled: enable them (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or install bwrap setuid root";
  }
  return "check that bwrap works: bwrap --ro-bind / / true";
}
