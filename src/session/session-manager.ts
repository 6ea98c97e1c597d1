// SessionManager: owns every kernel; decides which kernel serves a call (retained or per-call) and disposes them.
import type { CellLanguage } from "../contracts/cell-result.js";
import { PARSE_ONCE } from "../contracts/lazy-schema.js";
import { EvalkitError, isEvalkitError } from "../errors.js";
import type { JupyterServer } from "../kernel/jupyter/jupyter-server.js";
import type { Kernel } from "../kernel/kernel.js";
import { checkRuntimes } from "../kernel/runtimes/define-runtime.js";
import { resolveSandboxSetting } from "../runtime/sandbox-setting.js";
import { HostBridge } from "./bridge-handlers.js";
import { normaliseCwd } from "./call-cwd.js";
import { type CellTimeLimits, DEFAULT_INTERRUPT_GRACE_MS, resolveTimeLimits } from "./cell-timing.js";
import { ConcurrencyLimiter } from "./concurrency-limiter.js";
import { CwdPins } from "./cwd-pin.js";
import { createDefaultKernel, createDefaultResolver } from "./default-kernels.js";
import { JobRegistry } from "./job-registry.js";
import { KernelPool } from "./kernel-pool.js";
import { KernelSpecCache } from "./kernel-spec-cache.js";
import type { SessionKernelRef } from "./session-assist.js";
import { SessionCall } from "./session-call.js";
import { makeGroupKey, makeKernelKey } from "./session-keys.js";
import type {
  KernelFactory,
  KernelMode,
  SessionCallRequest,
  SessionCellOutcome,
  SessionManagerOptions,
  SessionManagerSettings,
  SessionRunRequest,
} from "./session-types.js";
import { sessionSchemas, validateCallRequest, validateInput } from "./session-validation.js";

/** Set only while `fromValidatedOptions` constructs (constructors are synchronous, so nothing interleaves). */
let isValidatedConstruction = false;

export const DEFAULT_IDLE_EVICT_MS = 5 * 60_000;
export const DEFAULT_MAX_KERNELS = 4;
export const DEFAULT_HEARTBEAT_MS = 30_000;
/** The default lives with the rest of a cell's time (cell-timing.ts); exported here as before. */
export { DEFAULT_INTERRUPT_GRACE_MS } from "./cell-timing.js";
export const DEFAULT_CRASH_LOOP_THRESHOLD = 2;
export const DEFAULT_RESOLVE_CACHE_MS = 5000;

/** A retained kernel as `list()` shows it. */
export interface RetainedKernelInfo {
  sessionId: string;
  cwd: string;
  language: CellLanguage;
  interpreter: string | undefined;
  isBusy: boolean;
  lastUsedAt: number;
}

/**
 * Owns every kernel. Mode `session` (default) retains kernels per session id + real cwd + interpreter +
 * language and serialises calls per session; mode `per-call` gives every call fresh kernels.
 * See docs/sessions.md and docs/timeouts.md.
 */
export class SessionManager {
  readonly mode: KernelMode;
  /** Jobs (calls that returned while their cells run) on this manager's sessions: docs/tool.md, Jobs. */
  readonly jobs = new JobRegistry();
  private readonly pool: KernelPool;
  private readonly queues = new Map<string, { queue: ConcurrencyLimiter; openCalls: number }>();
  private readonly ownKernels = new Set<Kernel>();
  private readonly disposeController = new AbortController();
  private readonly bridge: HostBridge;
  private readonly createKernel: KernelFactory;
  private readonly specs: KernelSpecCache;
  /** The one resolved value of this manager's cell time settings (cell-timing.ts). */
  readonly timeLimits: Readonly<CellTimeLimits>;
  private readonly crashLoopThreshold: number;
  private readonly checkpoints: SessionManagerOptions["checkpoints"];
  /** What the kernels run with (a tool sharing this manager checks its own options against it). */
  readonly settings: Readonly<SessionManagerSettings>;
  private disposing: Promise<void> | undefined;
  private readonly jupyterSettings: SessionManagerOptions["jupyter"];
  private jupyterServer: Promise<JupyterServer> | undefined;
  /** Sandboxed managers only: each cwd as it was at its first call (cwd-pin.ts). */
  private readonly cwdPins: CwdPins | undefined;
  /** Per-call kernels register here so `dispose()` can reach them (one function for every call). */
  private readonly trackOwnKernel = (kernel: Kernel): (() => void) => {
    this.ownKernels.add(kernel);
    return () => this.ownKernels.delete(kernel);
  };

  /**
   * A manager from options an entry point validated already (the eval tool builds them from its parsed settings):
   * they are not parsed a second time.
   */
  static fromValidatedOptions(options: SessionManagerOptions): SessionManager {
    isValidatedConstruction = true;
    try {
      return new SessionManager(options);
    } finally {
      isValidatedConstruction = false;
    }
  }

  constructor(options: SessionManagerOptions = {}) {
    if (!isValidatedConstruction)
      validateInput(sessionSchemas().manager, options, "session manager options", PARSE_ONCE);
    this.mode = options.mode ?? "session";
    const extraEnv = { ...(options.env ?? {}) };
    this.createKernel = options.createKernel ?? createDefaultKernel;
    this.timeLimits = Object.freeze(
      resolveTimeLimits({
        defaultTimeoutSec: options.defaultTimeoutSec,
        maxTimeoutSec: options.maxTimeoutSec,
        interruptGraceMs: options.interruptGraceMs,
      }),
    );
    this.crashLoopThreshold = options.crashLoopThreshold ?? DEFAULT_CRASH_LOOP_THRESHOLD;
    this.jupyterSettings = options.jupyter ? { ...options.jupyter } : undefined;
    const sandbox = resolveSandboxSetting(options.sandbox, process.cwd());
    const runtimes = checkRuntimes(options.runtimes);
    const limits =
      options.limits && Object.keys(options.limits).length > 0 ? { ...options.limits } : undefined;
    this.settings = Object.freeze({
      sandbox,
      limits,
      python: options.python,
      hasCustomInterpreter: options.resolveInterpreter !== undefined || (options.launcher?.length ?? 0) > 0,
      runtimes,
    });
    this.cwdPins = sandbox ? new CwdPins() : undefined;
    this.specs = new KernelSpecCache({
      resolveInterpreter:
        options.resolveInterpreter ??
        createDefaultResolver(options.python, extraEnv, options.launcher, sandbox),
      // Sandboxed, a cwd's interpreter is fixed by its first resolution: a cell that plants a venv later does
      // not change what the next kernel (after a reset or a crash) runs.
      resolveCacheMs: sandbox
        ? Number.POSITIVE_INFINITY
        : (options.resolveCacheMs ?? DEFAULT_RESOLVE_CACHE_MS),
      extraEnv,
      launcher: options.launcher,
      // Today's kernels take their grace at construction; a cell's `interruptGraceMs` carries the same value.
      interruptGraceMs: this.timeLimits.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
      sandbox,
      limits,
      checkpoints: options.checkpoints !== undefined,
      jupyter: this.jupyterSettings ? () => this.connectJupyter() : undefined,
      runtimes,
    });
    this.checkpoints = options.checkpoints;
    this.bridge = new HostBridge(options.bridge);
    this.pool = new KernelPool({
      maxKernels: options.maxKernels ?? DEFAULT_MAX_KERNELS,
      idleEvictMs: options.idleEvictMs ?? DEFAULT_IDLE_EVICT_MS,
      heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      isGroupBusy: (group) => {
        const slot = this.queues.get(group);
        return slot !== undefined && (slot.openCalls > 0 || slot.queue.inFlight > 0);
      },
    });
  }

  /**
   * The Python interpreter this manager's kernels for `cwd` run, and how it was found: its own resolver's answer
   * (a custom `resolveInterpreter`, a launcher, or the runtime's search), never a second opinion.
   */
  async resolveInterpreter(cwd: string): Promise<{ executable: string; reason?: string }> {
    const resolved = await this.specs.resolveInterpreter(normaliseCwd(cwd));
    return resolved.reason === undefined
      ? { executable: resolved.executable }
      : { executable: resolved.executable, reason: resolved.reason };
  }

  /** Aborts when `dispose()` starts. */
  get signal(): AbortSignal {
    return this.disposeController.signal;
  }

  get isDisposed(): boolean {
    return this.disposeController.signal.aborted;
  }

  /** True when cells (all but `js`) run on a Jupyter server. */
  get hasJupyter(): boolean {
    return this.jupyterSettings !== undefined;
  }

  /**
   * The Jupyter server this manager runs kernels on (its client is loaded on first use), or undefined when none
   * is configured.
   */
  connectJupyter(): Promise<JupyterServer> {
    const settings = this.jupyterSettings;
    if (settings === undefined)
      return Promise.reject(new EvalkitError("INVALID_INPUT", "no Jupyter server is configured"));
    // Loaded here, not at the top: a process that never talks to a Jupyter server never loads its client.
    this.jupyterServer ??= import("../kernel/jupyter/jupyter-server.js").then((m) =>
      m.createJupyterServer(settings),
    );
    return this.jupyterServer;
  }

  /** Live retained kernels (session mode). */
  get kernelCount(): number {
    return this.pool.liveCount;
  }

  /** The retained kernels, most recently used first. */
  list(): RetainedKernelInfo[] {
    return this.pool.list().map((entry) => ({
      sessionId: entry.spec.sessionId,
      cwd: entry.spec.cwd,
      language: entry.spec.language,
      interpreter: entry.spec.interpreter,
      isBusy: entry.useCount > 0,
      lastUsedAt: entry.lastUsedAt,
    }));
  }

  /**
   * Opens a call: cells run back to back on the session's kernels, and no other call on the same session
   * (id + cwd) runs until `close()`. Always close it in `finally`.
   */
  openCall(request: SessionCallRequest = {}): SessionCall {
    validateCallRequest(request);
    return this.openValidatedCall(request);
  }

  /**
   * `openCall` for an entry point that built or validated the request itself (the eval tool, from its parsed
   * options): nothing is validated again.
   */
  openValidatedCall(request: SessionCallRequest): SessionCall {
    if (this.isDisposed) throw new EvalkitError("DISPOSED", "the session manager was disposed");
    const sessionId = request.sessionId ?? "default";
    const given = request.cwd ?? process.cwd();
    const cwd = normaliseCwd(given);
    const pins = this.cwdPins;
    if (pins) this.checkPinnedCwd(pins, given, cwd);
    const group = makeGroupKey(sessionId, cwd);
    let slot = this.queues.get(group);
    if (!slot) {
      slot = { queue: new ConcurrencyLimiter(1), openCalls: 0 };
      this.queues.set(group, slot);
    }
    slot.openCalls += 1;
    const queueSlot = slot;
    const call = new SessionCall({
      mode: this.mode,
      sessionId,
      cwd,
      group,
      pool: this.pool,
      queue: queueSlot.queue,
      onClose: () => {
        queueSlot.openCalls -= 1;
        if (queueSlot.openCalls === 0 && this.queues.get(group) === queueSlot) this.queues.delete(group);
      },
      bridge: request.bridge ? new HostBridge(request.bridge) : this.bridge,
      disposeSignal: this.disposeController.signal,
      callSignal: request.signal,
      onInputRequest: request.onInputRequest,
      timeLimits: this.timeLimits,
      crashLoopThreshold: this.crashLoopThreshold,
      describeSpec: (language) => this.specs.describeSpec(language, sessionId, cwd),
      describeSpecNow: (language) => this.specs.describeSpecNow(language, sessionId, cwd),
      createKernel: this.createKernel,
      trackOwnKernel: this.trackOwnKernel,
      checkpoints: this.checkpoints,
      // Checked again before every kernel start: a cell may swap the cwd during the call, then crash its kernel.
      ...(pins ? { checkCwd: () => pins.check(given, normaliseCwd(given)) } : {}),
    });
    return call;
  }

  /**
   * CWD_INVALID when a sandboxed session's cwd was swapped or moved (cwd-pin.ts); the idle kernels that still
   * run in the old directory end with it, so nothing keeps working in a place the session no longer names.
   */
  private checkPinnedCwd(pins: CwdPins, given: string, real: string): void {
    try {
      pins.check(given, real);
    } catch (err) {
      const pinned = isEvalkitError(err, "CWD_INVALID") ? err.details.pinned : undefined;
      for (const entry of this.pool.list()) {
        if (entry.spec.cwd === pinned && entry.useCount === 0) {
          this.pool.markLost(entry, "its working directory was swapped or moved");
        }
      }
      throw err;
    }
  }

  /**
   * Starts the kernel that `language` cells of this session would use, so the first cell does not wait for it
   * (session mode; nothing in per-call mode). No cell runs: the execution count and the state stay as a fresh
   * kernel has them. When the session is busy, the running call starts its kernels itself. Resolves once the
   * kernel is up, or rejects with the reason it could not start (the next cell tries again).
   */
  async warm(
    request: Pick<SessionCallRequest, "sessionId" | "cwd"> & { language: CellLanguage },
  ): Promise<void> {
    const { language, ...callRequest } = request;
    // Python and JS are built in; any other language needs a Jupyter server.
    const isKnown = language === "py" || language === "js";
    if (typeof language !== "string" || language === "" || (!isKnown && !this.hasJupyter)) {
      const expected = this.hasJupyter
        ? "a language name"
        : '"py" or "js" (other languages need a Jupyter server)';
      throw new EvalkitError("INVALID_INPUT", `invalid warm request: language: expected ${expected}`, {
        field: "language",
      });
    }
    if (this.mode !== "session") return;
    const call = this.openCall(callRequest);
    try {
      await call.warm(language);
    } finally {
      await call.close();
    }
  }

  /**
   * The kernel retained for a session's `language` (alive or not), or undefined when it has none (per-call mode
   * retains none). It runs no cell and takes no queue: session-assist.ts asks it for completions and restarts.
   */
  async peekKernel(ref: SessionKernelRef): Promise<Kernel | undefined> {
    const sessionId = ref.sessionId ?? "default";
    const cwd = normaliseCwd(ref.cwd ?? process.cwd());
    const spec =
      this.specs.describeSpecNow(ref.language, sessionId, cwd) ??
      (await this.specs.describeSpec(ref.language, sessionId, cwd));
    const key = makeKernelKey(sessionId, cwd, spec);
    return this.pool.list().find((entry) => entry.key === key)?.kernel;
  }

  /** Runs a single cell as one call. */
  async run(request: SessionRunRequest): Promise<SessionCellOutcome> {
    const call = this.openCall(pickCallFields(request));
    try {
      return await call.run(request);
    } finally {
      await call.close();
    }
  }

  /**
   * Cancels every running cell, shuts every kernel down (exit → SIGTERM → SIGKILL to each process group)
   * and resolves once they are gone. Later calls fail with DISPOSED.
   */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.disposeController.abort(new EvalkitError("DISPOSED", "the session manager was disposed"));
      const own = [...this.ownKernels];
      this.ownKernels.clear();
      await Promise.allSettled([this.pool.dispose(), ...own.map((kernel) => kernel.shutdown())]);
    })();
    return this.disposing;
  }
}

function pickCallFields(request: SessionRunRequest): SessionCallRequest {
  const call: SessionCallRequest = {};
  if (request.sessionId !== undefined) call.sessionId = request.sessionId;
  if (request.cwd !== undefined) call.cwd = request.cwd;
  if (request.bridge !== undefined) call.bridge = request.bridge;
  if (request.onInputRequest !== undefined) call.onInputRequest = request.onInputRequest;
  return call;
}
