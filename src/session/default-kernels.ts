// The manager's defaults: the runtime's interpreter resolution and the real kernels (Python, JS, or a Jupyter server's).
import { EvalkitError } from "../errors.js";
import { JsKernel } from "../kernel/js/js-kernel.js";
import type { Kernel } from "../kernel/kernel.js";
import { PythonKernel } from "../kernel/python/python-kernel.js";
import type { RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import { createRuntimeKernel } from "../kernel/runtimes/protocol-runtime.js";
import { buildKernelEnv } from "../runtime/child-env.js";
import { filterEnv } from "../runtime/env-filter.js";
import { resolvePython } from "../runtime/resolve-python.js";
import type { ResolvedSandbox } from "../runtime/sandbox-types.js";
import type { InterpreterResolver, KernelFactory, KernelSpec } from "./session-types.js";

/**
 * Resolves per cwd (explicit interpreter, venvs, PATH...) and builds the filtered child environment.
 * With a launcher the interpreter lives on the far side (a container, a host), where nothing local can be
 * searched: the interpreter is the explicit one or `python3`, and the launcher process itself gets the
 * parent environment it needs to reach the far side (SSH_AUTH_SOCK, KUBECONFIG, DOCKER_HOST...). The far
 * side's interpreter sees its own environment, not ours.
 */
export function createDefaultResolver(
  python: string | undefined,
  extraEnv: Record<string, string>,
  launcher: string[] | undefined = undefined,
  sandbox: ResolvedSandbox | undefined = undefined,
): InterpreterResolver {
  if (launcher && launcher.length > 0) {
    const env = { ...definedEntries(process.env), ...extraEnv };
    return async () => ({
      executable: python ?? "python3",
      env,
      reason: `run through ${launcher.join(" ")}`,
    });
  }
  return async (cwd) => {
    const options: { cwd: string; python?: string; untrusted?: string[] } = { cwd };
    if (python !== undefined) options.python = python;
    // Sandboxed: what a cell can write (the cwd, the writable paths) is never run on the host.
    if (sandbox !== undefined) options.untrusted = [cwd, ...sandbox.writable];
    const resolved = await resolvePython(options);
    return {
      executable: resolved.executable,
      env: buildKernelEnv(resolved, process.env, extraEnv),
      reason: resolved.reason,
    };
  };
}

function definedEntries(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  return result;
}

/** The environment of kernels that need no interpreter resolution (JS). */
export function buildPlainEnv(extraEnv: Record<string, string>): Record<string, string> {
  return filterEnv(process.env, { extra: extraEnv });
}

/**
 * PythonKernel for `py`, JsKernel for `js`. The JS kernel keeps its own short interrupt grace (a synchronous
 * loop after an await can never honour an interrupt, so waiting 5 s would only waste the caller's time).
 */
export const createDefaultKernel: KernelFactory = (spec: KernelSpec): Kernel => {
  if (spec.runtime !== undefined) return createProtocolKernel(spec, spec.runtime);
  if (spec.jupyter !== undefined)
    return spec.jupyter.server.createKernel(spec.jupyter.kernelName, spec.language, spec.interruptGraceMs);
  // The two built-in runtimes take different options: JS a memory limit of its own and no interpreter.
  if (spec.language === "js") {
    const memoryMb = spec.limits?.memoryMb;
    return new JsKernel({
      cwd: spec.cwd,
      env: spec.env,
      ...(memoryMb ? { memoryMb: Math.max(64, memoryMb) } : {}),
      ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      ...(spec.limits?.cpuSeconds || spec.limits?.processes ? { limits: jsLimits(spec.limits) } : {}),
    });
  }
  if (spec.interpreter === undefined) {
    throw new EvalkitError("INTERNAL", "a Python kernel spec without an interpreter");
  }
  return new PythonKernel({
    python: spec.interpreter,
    cwd: spec.cwd,
    env: spec.env,
    interruptGraceMs: spec.interruptGraceMs,
    ...(spec.launcher && spec.launcher.length > 0 ? { launcher: spec.launcher } : {}),
    ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
    ...(spec.limits ? { limits: spec.limits } : {}),
    ...(spec.checkpoints === true ? { checkpoints: true } : {}),
    ...(spec.forkOf !== undefined ? { forkOf: spec.forkOf } : {}),
  });
};

/**
 * A protocol runner's kernel. It runs as the host's user with the runner's own program: refused where the manager
 * promises more (a sandbox, limits, a launcher) than such a kernel can keep, rather than run it without them.
 */
function createProtocolKernel(spec: KernelSpec, runtime: RuntimeSpec): Kernel {
  const refused = spec.sandbox
    ? "sandbox"
    : spec.limits
      ? "limits"
      : spec.launcher?.length
        ? "launcher"
        : undefined;
  if (refused !== undefined)
    throw new EvalkitError(
      "INVALID_INPUT",
      `the ${runtime.name} runtime cannot run with the option ${refused} yet (docs/runtimes.md); its cells need a manager without it`,
      { field: refused, language: runtime.name },
    );
  // The runtime's own grace, as JS keeps its own: the manager's default is Python's.
  return createRuntimeKernel(runtime, { cwd: spec.cwd, env: spec.env });
}

function jsLimits(limits: NonNullable<KernelSpec["limits"]>): { cpuSeconds?: number; processes?: number } {
  return {
    ...(limits.cpuSeconds ? { cpuSeconds: limits.cpuSeconds } : {}),
    ...(limits.processes ? { processes: limits.processes } : {}),
  };
}
