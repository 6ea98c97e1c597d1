// A tool built on a shared SessionManager: its kernel options are the manager's. An option the tool was given that
// the manager does not apply is refused (INVALID_INPUT naming it), never dropped: a tool asked for a sandbox must
// not run cells unsandboxed because the manager was made without one.
import { EvalkitError } from "../errors.js";
import { isSameSandbox } from "../runtime/sandbox-setting.js";
import type { ResourceLimits } from "../runtime/sandbox-types.js";
import type { ResolvedToolOptions } from "./tool-options.js";

const LIMIT_KEYS = ["memoryMb", "cpuSeconds", "processes"] as const;

function isSameLimits(a: ResourceLimits | undefined, b: ResourceLimits | undefined): boolean {
  return LIMIT_KEYS.every((key) => a?.[key] === b?.[key]);
}

function describeLimits(limits: ResourceLimits | undefined): string {
  return limits === undefined ? "no limits" : JSON.stringify(limits);
}

function refuse(field: string, message: string): never {
  throw new EvalkitError(
    "INVALID_INPUT",
    `${field}: ${message}; a tool on a shared manager runs its kernels with the manager's settings (give ${field} to the SessionManager, or leave it out here)`,
    { field },
  );
}

/**
 * The options with the shared manager's kernel settings filled in (so the tool's own checks, the sandbox's
 * preconditions and `checkBackends()`, see what really runs). Throws INVALID_INPUT for `sandbox`, `limits`,
 * `python` or `launcher` given to the tool and different from the manager's.
 */
export function adoptManagerSettings(config: ResolvedToolOptions): ResolvedToolOptions {
  const manager = config.manager;
  if (manager === undefined) return config;
  const settings = manager.settings;
  if (config.sandbox !== undefined && !isSameSandbox(config.sandbox, settings.sandbox)) {
    refuse(
      "sandbox",
      settings.sandbox === undefined
        ? "the shared manager runs kernels without a sandbox"
        : `the shared manager's sandbox differs (${JSON.stringify(settings.sandbox)})`,
    );
  }
  if (config.limits !== undefined && !isSameLimits(config.limits, settings.limits)) {
    refuse("limits", `the shared manager runs kernels with ${describeLimits(settings.limits)}`);
  }
  if (config.python !== undefined && config.python !== settings.python) {
    refuse(
      "python",
      settings.python === undefined
        ? "the shared manager resolves its own interpreter"
        : `the shared manager runs ${JSON.stringify(settings.python)}`,
    );
  }
  if (config.launcher !== undefined) refuse("launcher", "the shared manager starts its own kernels");
  if (config.runtimes.length > 0)
    refuse("runtimes", "give runtimes to the shared manager, which starts the kernels");
  // The manager's runtimes are the tool's languages too (a manager from another version may have none).
  const runtimes = [...(settings.runtimes ?? [])];
  const enabled = [...config.enabled, ...runtimes.map((runtime) => runtime.name)];
  return {
    ...config,
    sandbox: settings.sandbox,
    limits: settings.limits,
    python: settings.python,
    runtimes,
    enabled,
  };
}
