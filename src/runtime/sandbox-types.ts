// The shapes of the sandbox and resource-limit options, shared by the kernels, the session layer and the tool.

/** What a sandboxed kernel may do beyond the defaults (read-only system, writable cwd, private /tmp, no network). */
export interface SandboxOptions {
  /** Keep the host's network (default false: an empty network namespace, not even the host's loopback). */
  network?: boolean;
  /** More paths the cells may write (they must exist); everything else outside the cwd and /tmp is read-only. */
  writable?: string[];
}

/** The `sandbox` option: `true` for the defaults, an object to widen them, `false`/absent for none. */
export type SandboxSetting = boolean | SandboxOptions;

/** A sandbox after validation: absolute writable paths. */
export interface ResolvedSandbox {
  network: boolean;
  writable: string[];
}

/** Resource limits of a kernel process (and what it starts); they apply with or without the sandbox. */
export interface ResourceLimits {
  /** Heap and other private writable memory of each kernel process, in MB (RLIMIT_DATA). */
  memoryMb?: number;
  /** CPU seconds a kernel process may use over its life (RLIMIT_CPU); past it the kernel is killed. */
  cpuSeconds?: number;
  /** Processes the kernel's user may run at once, counting from those it had at start (RLIMIT_NPROC). */
  processes?: number;
}
