// How a JS kernel's node is launched: the sandbox or launcher prefix, the resource limits (prlimit and the
// heap) and the subreaper parent, composed in the order each needs.
import path from "node:path";
import { EvalkitError } from "../../errors.js";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import { findOnPath } from "../../runtime/find-executable.js";
import { buildSandboxArgv } from "../../runtime/sandbox-argv.js";
import type { KernelCgroup } from "../../runtime/sandbox-cgroup.js";
import { prepareKernelLayers } from "../../runtime/sandbox-layers.js";
import { requireSandboxFeatures } from "../../runtime/sandbox-probe.js";
import type { ResolvedSandbox } from "../../runtime/sandbox-types.js";
import { countOwnProcesses } from "../process/process-tree.js";
import { needsHeapFlag } from "./heap-flag.js";
import { JS_RUNNER_MAIN } from "./js-command.js";
import { type JsKernelOptions, memoryLimits } from "./js-kernel-options.js";
import type { JsProcessConfig } from "./js-kernel-process.js";
import { subreaperPrefix, subreaperPython } from "./subreaper-parent.js";

/** The kernel process's configuration, less its working directory and event handlers. */
export type JsLaunch = Omit<JsProcessConfig, "cwd" | "onItem" | "onExit">;

/** Works out how to launch node for a kernel with `options` in `cwd`. */
export async function buildJsLaunch(options: JsKernelOptions, cwd: string): Promise<JsLaunch> {
  const { maxHeapMb, memoryMb } = memoryLimits(options);
  const { launcher, python, cgroup, seccompFile } = await buildPrefix(options, cwd);
  const node = options.node ?? process.execPath;
  const env = options.env ?? (process.env as Record<string, string>);
  const isRemote = !options.sandbox && (options.launcher?.length ?? 0) > 0;
  return {
    node,
    env,
    maxHeapMb,
    heapFlag: needsHeapFlag({ node, maxHeapMb, env, isRemote }),
    memoryMb,
    ...(launcher?.length ? { launcher } : {}),
    ...(python !== null ? { parent: subreaperPrefix(python) } : {}),
    ...(options.sandbox ? { sandboxed: true } : {}),
    ...(cgroup ? { cgroup } : {}),
    ...(seccompFile ? { seccompFile } : {}),
    ...(isRemote ? { isRemote: true } : {}),
    ...(options.limits?.cpuSeconds ? { cpuSeconds: options.limits.cpuSeconds } : {}),
  };
}

/** The prefix before node, and the Python that runs the subreaper parent (null: none). */
async function buildPrefix(
  options: JsKernelOptions,
  cwd: string,
): Promise<{ launcher: string[]; python: string | null; cgroup?: KernelCgroup; seccompFile?: string }> {
  const sandboxed = options.sandbox ? await sandboxPrefix(options, cwd) : undefined;
  const wrapped = sandboxed ? sandboxed.argv : options.launcher;
  // In a sandbox the limits go inside (`bwrap … -- prlimit … -- node`): the sandbox is a user namespace of its
  // own, where the OS counts only that namespace's tasks against RLIMIT_NPROC.
  const inOwnUserNs = sandboxed !== undefined;
  // The sandbox's PID namespace already ends everything with the kernel; a custom launcher may lack Python.
  const python = wrapped === undefined ? subreaperPython(options.subreaperPython) : null;
  const ownTasks = JS_KERNEL_TASKS + (python === null ? 0 : 1);
  const limits = limitPrefix(options.limits, ownTasks, () => (inOwnUserNs ? 1 : countOwnProcesses()));
  const launcher = options.sandbox ? [...(wrapped ?? []), ...limits] : [...limits, ...(wrapped ?? [])];
  return {
    launcher,
    python,
    ...(sandboxed?.cgroup ? { cgroup: sandboxed.cgroup } : {}),
    ...(sandboxed?.seccompFile ? { seccompFile: sandboxed.seccompFile } : {}),
  };
}

/** bwrap around node: the node installation and evalkit's runner-js/ read-only, the cwd writable. */
async function sandboxPrefix(
  options: JsKernelOptions,
  cwd: string,
): Promise<{ argv: string[]; cgroup: KernelCgroup | undefined; seccompFile: string | undefined }> {
  const env = options.env ?? process.env;
  const { bwrap, sizedTmpfs } = await requireSandboxFeatures();
  const memoryMb = options.memoryMb; // only an asked-for limit, not the default resident watch
  const limits = {
    ...(memoryMb ? { memoryMb } : {}),
    ...(options.limits?.processes ? { processes: options.limits.processes } : {}),
  };
  const layers = prepareKernelLayers(limits, resolveEvalkitHome(env));
  const argv = buildSandboxArgv({
    bwrap,
    sandbox: options.sandbox as ResolvedSandbox,
    cwd,
    executables: [options.node ?? process.execPath],
    home: env.HOME,
    evalkitHome: resolveEvalkitHome(env),
    readOnly: [path.dirname(JS_RUNNER_MAIN)],
    // Files in the private tmpfs mounts are memory too: under a memory limit each is capped at it.
    tmpfsBytes: memoryMb !== undefined && sizedTmpfs ? memoryMb * 1024 * 1024 : undefined,
    hasSeccompFd: layers.seccompFile !== undefined,
    cgroupProcs: layers.cgroup?.procsFiles,
  });
  return { argv, cgroup: layers.cgroup, seccompFile: layers.seccompFile };
}

/** Tasks a JS kernel needs for itself (node's ~7 threads, libuv's pool of 4), beyond what its cells start (+1 parent). */
const JS_KERNEL_TASKS = 12;

/**
 * `prlimit --cpu=N:N+2 --nproc=M --` for the limits node cannot set on itself, inherited by what the kernel
 * starts; `baseTasks` says what RLIMIT_NPROC already counts. No prlimit while a limit is asked for:
 * INVALID_INPUT naming the limit.
 */
function limitPrefix(limits: JsKernelOptions["limits"], ownTasks: number, baseTasks: () => number): string[] {
  if (!limits?.cpuSeconds && !limits?.processes) return [];
  const prlimit = findOnPath("prlimit", process.env);
  if (prlimit === undefined) {
    const field = limits.cpuSeconds ? "limits.cpuSeconds" : "limits.processes";
    throw new EvalkitError(
      "INVALID_INPUT",
      `${field}: JS kernels need prlimit (util-linux) on PATH for this limit`,
      {
        field,
      },
    );
  }
  const args = [prlimit];
  if (limits.cpuSeconds) args.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 2}`);
  // RLIMIT_NPROC counts threads: the kernel's own are not the cell's N.
  if (limits.processes) args.push(`--nproc=${baseTasks() + ownTasks + limits.processes}`);
  return [...args, "--"];
}
