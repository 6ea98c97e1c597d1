// The manager's defaults: the runtime's interpreter resolution and the real kernels (PythonKernel for py cells).
import { EvalkitError } from "../errors.js";
import { JsKernel } from "../kernel/js-kernel.js";
import type { Kernel } from "../kernel/kernel.js";
import { PythonKernel } from "../kernel/python-kernel.js";
import { buildKernelEnv } from "../runtime/child-env.js";
import { filterEnv } from "../runtime/env-filter.js";
import { resolvePython } from "../runtime/resolve-python.js";
import type { InterpreterResolver, KernelFactory, KernelSpec } from "./session-types.js";

/** Resolves per cwd (explicit interpreter, venvs, PATH...) and builds the filtered child environment. */
export function createDefaultResolver(
  python: string | undefined,
  extraEnv: Record<string, string>,
): InterpreterResolver {
  return async (cwd) => {
    const options: { cwd: string; python?: string } = { cwd };
    if (python !== undefined) options.python = python;
    const resolved = await resolvePython(options);
    return { executable: resolved.executable, env: buildKernelEnv(resolved, process.env, extraEnv) };
  };
}

/** The environment of kernels that need no interpreter resolution (JS). */
export function buildPlainEnv(extraEnv: Record<string, string>): Record<string, string> {
  return filterEnv(process.env, { extra: extraEnv });
}

/**
 * PythonKernel for `py`, JsKernel for `js`. The JS worker keeps its own short interrupt grace (a synchronous
 * loop in a worker can never honour an interrupt, so waiting 5 s would only waste the caller's time).
 */
export const createDefaultKernel: KernelFactory = (spec: KernelSpec): Kernel => {
  if (spec.language === "js") return new JsKernel({ cwd: spec.cwd, env: spec.env });
  if (spec.interpreter === undefined) {
    throw new EvalkitError("INTERNAL", "a Python kernel spec without an interpreter");
  }
  return new PythonKernel({
    python: spec.interpreter,
    cwd: spec.cwd,
    env: spec.env,
    interruptGraceMs: spec.interruptGraceMs,
    ...(spec.launcher && spec.launcher.length > 0 ? { launcher: spec.launcher } : {}),
  });
};
