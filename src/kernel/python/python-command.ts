// How a Python kernel is started: the spawn command (launcher or sandbox prefix), its environment additions and
// the configuration the runner reads from its bundle. No process is started here.
import { join } from "node:path";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import { isHostGuardSupported } from "../../runtime/host-guard.js";
import { packagePath } from "../../runtime/package-root.js";
import { buildSandboxArgv } from "../../runtime/sandbox-argv.js";
import type { KernelLayers } from "../../runtime/sandbox-layers.js";
import type { SandboxFeatures } from "../../runtime/sandbox-probe.js";
import type { ResolvedSandbox } from "../../runtime/sandbox-types.js";
import { countOwnProcesses } from "../process/process-tree.js";
import { quoteForShell, shouldShellQuote } from "../process/shell-quote.js";
import type { PythonKernelOptions } from "./python-kernel-options.js";
import { RUNNER_LOADER, RUNNER_PS_LABEL } from "./runner-bundle.js";

/** The process a forked session starts: it hands its stdio to a checkpoint of the kernel forked from. */
const FORK_RELAY_SCRIPT = packagePath("python", "fork_relay.py");

/** The options of {@link PythonKernel} that decide how it starts. */
export type PythonStartOptions = Pick<
  PythonKernelOptions,
  | "python"
  | "args"
  | "launcher"
  | "launcherShellQuote"
  | "cwd"
  | "env"
  | "codeCacheDir"
  | "sandbox"
  | "limits"
  | "checkpoints"
  | "forkOf"
>;

/** What starting one Python kernel takes: the command, the child's environment, the runner's configuration. */
export interface PythonLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  runnerConfig: Record<string, unknown>;
  /** The seccomp program the spawn opens on bwrap's descriptor (sandboxed kernels). */
  seccompFile?: string;
}

/** The launch of a kernel with `options` (`bwrap`: the probed sandbox, when it runs in one), worked out now. */
export function buildPythonLaunch(
  options: PythonStartOptions,
  bwrap?: SandboxFeatures,
  layers?: KernelLayers,
): PythonLaunch {
  const { command, args } = buildPythonCommand(options, bwrap, layers);
  const { env, added } = withMallocTuning(options.env ?? (process.env as Record<string, string>));
  // The host's tasks, counted before the sandbox exists (inside, the runner counts its own), plus bwrap itself.
  const processesBase =
    options.sandbox && options.limits?.processes !== undefined ? countOwnProcesses() + 1 : undefined;
  const launch: PythonLaunch = {
    command,
    args,
    env,
    runnerConfig: buildRunnerConfig(options, added, processesBase),
  };
  if (bwrap !== undefined && layers?.seccompFile !== undefined) launch.seccompFile = layers.seccompFile;
  return launch;
}

/**
 * glibc malloc tuning for the runner, unless the environment sets its own: big frames (a base64 image) are
 * built from heap memory that stays mapped instead of fresh mmap()s whose page faults cost more than the
 * encoding on virtual machines (a 1 MB image: ~25 ms → ~6 ms in the runner). Keeps at most 32 MiB of
 * freed heap; allocations over 8 MiB are still mmap()ed and returned at once. The runner removes the
 * variables from os.environ at start-up, so cells and their children never see them.
 */
const MALLOC_ENV: Record<string, string> = {
  MALLOC_MMAP_THRESHOLD_: String(8 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(32 * 1024 * 1024),
};

/** The child's environment: `base` plus the malloc tuning it does not set itself (`added` names those). */
function withMallocTuning(base: Record<string, string>): {
  env: Record<string, string>;
  added: string[];
} {
  const env = { ...base };
  const added: string[] = [];
  for (const [name, value] of Object.entries(MALLOC_ENV)) {
    if (base[name] === undefined) {
      env[name] = value;
      added.push(name);
    }
  }
  return { env, added };
}

/** `python -u -c <loader> evalkit-kernel python` (the bootstrap comes on stdin), behind the launcher or the sandbox prefix when there is one. */
function buildPythonCommand(
  options: PythonStartOptions,
  bwrap?: SandboxFeatures,
  layers?: KernelLayers,
): { command: string; args: string[] } {
  if (options.forkOf !== undefined) {
    // Local only (the copy lives beside the kernel it was forked from): the relay, no launcher, no sandbox prefix.
    return {
      command: options.python,
      args: ["-I", "-S", FORK_RELAY_SCRIPT, options.forkOf.token, options.forkOf.name],
    };
  }
  const pythonArgs = [...(options.args ?? []), "-u", "-c", RUNNER_LOADER, ...RUNNER_PS_LABEL];
  const launcher = bwrap === undefined ? options.launcher : buildSandboxPrefix(options, bwrap, layers);
  if (!launcher || launcher.length === 0) return { command: options.python, args: pythonArgs };
  const [command, ...prefix] = launcher as [string, ...string[]];
  const quote = options.launcherShellQuote ?? shouldShellQuote(command);
  const tail = [options.python, ...pythonArgs];
  return { command, args: [...prefix, ...(quote ? [quoteForShell(tail)] : tail)] };
}

function buildSandboxPrefix(
  options: PythonStartOptions,
  features: SandboxFeatures,
  layers: KernelLayers | undefined,
): string[] {
  const sandbox = options.sandbox as ResolvedSandbox;
  const env = options.env ?? process.env;
  const evalkitHome = resolveEvalkitHome(env);
  const cache = options.codeCacheDir;
  const codeCache = typeof cache === "string" ? cache : join(evalkitHome, "cache", "runner-code");
  const memoryMb = options.limits?.memoryMb;
  return buildSandboxArgv({
    bwrap: features.bwrap,
    sandbox,
    cwd: options.cwd ?? process.cwd(),
    executables: [options.python],
    home: env.HOME,
    evalkitHome,
    readOnly: cache === false ? [] : [codeCache],
    // Files in the private tmpfs mounts are memory too: under a memory limit each is capped at it.
    tmpfsBytes: memoryMb !== undefined && features.sizedTmpfs ? memoryMb * 1024 * 1024 : undefined,
    hasSeccompFd: layers?.seccompFile !== undefined,
    cgroupProcs: layers?.cgroup?.procsFiles,
  });
}

/**
 * Who ends a kernel's tree when its host dies, besides the runner itself: "host-guard" (local kernels: the
 * host's one guard, python/host_guard.py, which the kernel process registers with once spawned), "sandbox"
 * (bwrap's --die-with-parent ends the kernel's PID namespace, so nothing outlives it; the guard is not run
 * with a sandboxed kernel's interpreter, which may lie where cells write), or "runner" (a remote runner behind
 * a launcher such as ssh starts its own guard on the far machine, watching its protocol pipe).
 */
export function chooseKernelGuard(
  options: Pick<PythonStartOptions, "launcher" | "forkOf" | "sandbox">,
): "host-guard" | "sandbox" | "runner" {
  if (options.launcher?.length || options.forkOf !== undefined) return "runner";
  if (options.sandbox) return "sandbox";
  return isHostGuardSupported() ? "host-guard" : "runner";
}

/**
 * What the runner reads from its bundle's `config` (docs/protocol.md): cwd, variables to drop, limits, how
 * interrupts reach it, where its compiled-code cache lives. `processesBase`: the host's tasks when a sandboxed
 * kernel with a process limit started (inside, the runner counts only its own).
 */
function buildRunnerConfig(
  options: PythonStartOptions,
  addedEnv: string[],
  processesBase: number | undefined,
): Record<string, unknown> {
  const config: Record<string, unknown> = { cwd: options.cwd };
  if (addedEnv.length > 0) config.dropEnv = addedEnv;
  if (options.limits) {
    const limits: Record<string, unknown> = { ...options.limits };
    if (processesBase !== undefined) limits.processesBase = processesBase;
    config.limits = limits;
  }
  if (options.sandbox) config.interruptGroup = true;
  // The runner starts no guard of its own when something outside it ends its tree with the host.
  if (chooseKernelGuard(options) !== "runner") config.guardedOutside = true;
  if (options.checkpoints === true && !options.launcher?.length) config.checkpoints = true;
  const cache = options.codeCacheDir;
  if (typeof cache === "string") config.codeCache = cache;
  else if (cache === undefined && !options.launcher?.length) {
    config.codeCache = join(resolveEvalkitHome(), "cache", "runner-code");
  }
  return config;
}
