// What a tool's options make of its session manager and its call preconditions (the sandbox's checks).
import { checkSandboxLayout } from "../runtime/sandbox-argv.js";
import { requireSandbox } from "../runtime/sandbox-probe.js";
import type { SessionManagerOptions } from "../session/session-types.js";
import type { ResolvedToolOptions } from "./tool-options.js";

/**
 * Asked for and not available: the call fails before any cell runs (never unsandboxed); a layout that would undo
 * the sandbox (cwd `/`, the home) fails it too.
 */
export async function checkSandboxPreconditions(config: ResolvedToolOptions): Promise<void> {
  if (config.sandbox === undefined) return;
  await requireSandbox();
  checkSandboxLayout({ sandbox: config.sandbox, cwd: config.cwd, home: config.env.HOME ?? process.env.HOME });
}

export function buildManagerOptions(config: ResolvedToolOptions): SessionManagerOptions {
  const options: SessionManagerOptions = {
    mode: config.mode,
    // The prelude's output() reads artifacts from the kernel side: tell it where this tool stores them.
    env:
      config.artifactsDir !== undefined
        ? { EVALKIT_ARTIFACTS_DIR: config.artifactsDir, ...config.env }
        : config.env,
    defaultTimeoutSec: config.defaultTimeout,
    maxTimeoutSec: config.maxTimeout,
  };
  if (config.python !== undefined) options.python = config.python;
  if (config.launcher !== undefined) options.launcher = config.launcher;
  if (config.handlers !== undefined) options.bridge = config.handlers;
  if (config.interruptGraceMs !== undefined) options.interruptGraceMs = config.interruptGraceMs;
  if (config.createKernel !== undefined) options.createKernel = config.createKernel;
  if (config.sandbox !== undefined) options.sandbox = config.sandbox;
  if (config.limits !== undefined) options.limits = config.limits;
  if (config.jupyter !== undefined) options.jupyter = config.jupyter;
  if (config.checkpoints !== undefined) options.checkpoints = config.checkpoints;
  if (config.runtimes.length > 0) options.runtimes = config.runtimes;
  return options;
}
