// createEvalTool: the framework-agnostic eval tool (schema, description, exclusive execute, dispose).
import type { CellLanguage, CheckpointDetails } from "../contracts/cell-result.js";
import { EvalkitError } from "../errors.js";
import type { JupyterServer } from "../kernel/jupyter/jupyter-server.js";
import { type ArtifactStore, createArtifactStore } from "../output/artifacts/artifact-store.js";
import type { CellTimeLimits } from "../session/cell-timing.js";
import { ConcurrencyLimiter } from "../session/concurrency-limiter.js";
import { SessionManager } from "../session/session-manager.js";
import type { SessionCallRequest } from "../session/session-types.js";
import { BackendSelector, type EvalBackendStatus, type RemoteLanguages } from "./backends.js";
import { buildEvalDescription } from "./description.js";
import type { EvalJob } from "./eval-job.js";
import { forkEvalTool, travel } from "./fork-tool.js";
import {
  createEvalInputSchema,
  type EvalInput,
  type EvalInputSchema,
  type EvalRequest,
  isJobInput,
  type JsonSchemaObject,
  parseEvalRequest,
  toInputJsonSchema,
} from "./input-schema.js";
import { assertSessionFree, continueJob, runYieldingCall, sessionGroup } from "./job-call.js";
import { buildManagerOptions, checkSandboxPreconditions } from "./manager-options.js";
import { buildContent } from "./result-content.js";
import {
  type EvalOutputEvent,
  type EvalProgress,
  type EvalToolResult,
  type RunCallContext,
  type RunCallTap,
  runEvalCall,
} from "./run-call.js";
import { createSecretReader } from "./secret-snapshot.js";
import { adoptManagerSettings } from "./shared-manager.js";
import { type EvalToolOptions, type ResolvedToolOptions, resolveToolOptions } from "./tool-options.js";

/** Per-call context of `execute`. */
export interface EvalExecuteContext {
  /** Aborting cancels the running cell (interrupt, then kill after the grace) and skips the rest. */
  signal?: AbortSignal;
  /** Partial results while cells run (throttled to one per `updateIntervalMs`). */
  onUpdate?: (progress: EvalProgress) => void;
  /** Each output of the running cell as it arrives (redacted, unthrottled), for front ends that stream. */
  onOutput?: (event: EvalOutputEvent) => void;
  /**
   * Run the later cells even after a cell ends with an error (`jupyter nbconvert --allow-errors`); a timeout, a
   * cancellation or a lost kernel still stops the call. The model's input has no such field: this is the host's.
   */
  continueOnError?: boolean;
}

/** The eval tool: mount `name`, `description` and `inputSchema` in an agent framework; call `execute`. */
export interface EvalTool {
  readonly name: "eval";
  /** Model-facing description; mentions only the backends that are enabled (and not known broken). */
  readonly description: string;
  /** JSON Schema of the input (generated from `zodSchema`; `language` narrowed to what is advertised). */
  readonly inputSchema: JsonSchemaObject;
  /** The zod schema that validates input (accepts every enabled language). */
  readonly zodSchema: EvalInputSchema;
  /**
   * Runs the cells. Throws EvalkitError INVALID_INPUT for invalid input and DISPOSED after `dispose()`;
   * everything that happens in a cell (exceptions, timeouts, a missing interpreter) is in the result.
   * Calls on one tool never overlap: a second call waits for the first.
   */
  execute(input: unknown, context?: EvalExecuteContext): Promise<EvalToolResult>;
  /**
   * `execute` for input already parsed with this tool's `zodSchema` (`evalkit exec` parses its input to report
   * problems in its own words): it is not validated a second time.
   */
  executeParsed(request: EvalRequest, context?: EvalExecuteContext): Promise<EvalToolResult>;
  /** Checks the backends now (Python preflight); afterwards `description`/`inputSchema` reflect the result. */
  checkBackends(): Promise<EvalBackendStatus>;
  /**
   * Starts, ahead of the first call, the kernel a cell without a language would use (session mode), so that
   * call does not wait for it; no cell runs. Best effort: always resolves; a kernel that cannot start is left
   * for the call to report. `evalkit mcp` does this while the client initializes.
   */
  warm(): Promise<void>;
  /**
   * Takes a checkpoint of the session's Python state under `name` (docs/checkpoints.md); resolves to the session's
   * checkpoints, throws EvalkitError (CHECKPOINTS_UNSUPPORTED, CHECKPOINT_FAILED...) when it cannot.
   */
  checkpoint(name: string): Promise<CheckpointDetails>;
  /** Rolls the session's Python state back to checkpoint `name` (which stays); throws CHECKPOINT_NOT_FOUND. */
  restore(name: string): Promise<CheckpointDetails>;
  /** Back to the state before the last call that ran cells (needs `checkpoints` with `undo` levels). */
  undo(): Promise<CheckpointDetails>;
  /**
   * A new tool on a new session whose Python state starts as a copy of this session's (docs/checkpoints.md, Fork):
   * explore two branches side by side. Takes checkpoint `fork-N` here, which the fork starts from. Needs
   * `checkpoints`; not for sandboxed tools or a shared `manager` (CHECKPOINTS_UNSUPPORTED). Dispose it on its own.
   */
  fork(): Promise<EvalTool>;
  /** Cancels what runs and shuts down every kernel this tool started. */
  dispose(): Promise<void>;
}

/** Creates the eval tool. `createEvalTool({})` works: interpreter found by the runtime layer, session mode. */
export function createEvalTool(options: EvalToolOptions = {}): EvalTool {
  return createEvalToolFromSettings(resolveToolOptions(options));
}

/**
 * The eval tool from settings an entry point has parsed already (`resolveToolOptions`: the MCP server parses its
 * options once at start-up): nothing is validated again, and the session manager it makes takes them as they are.
 */
export function createEvalToolFromSettings(settings: ResolvedToolOptions): EvalTool {
  const config = adoptManagerSettings(settings);
  const manager = config.manager ?? SessionManager.fromValidatedOptions(buildManagerOptions(config));
  // With a Jupyter server (the manager's, which may be shared), every language but js is the server's.
  let jupyterServer: JupyterServer | undefined;
  const remote: RemoteLanguages | undefined = manager.hasJupyter
    ? {
        url: config.jupyter?.url ?? "the Jupyter server",
        load: async (refresh) => {
          jupyterServer = await manager.connectJupyter();
          return jupyterServer.loadCatalog(refresh);
        },
        known: () => jupyterServer?.knownCatalog,
      }
    : undefined;
  // A shared manager with its own resolver or launcher decides the interpreter: checkBackends() asks it.
  const backends = new BackendSelector(
    config.enabled,
    config.python,
    config.cwd,
    remote,
    config.manager?.settings.hasCustomInterpreter ? (cwd) => manager.resolveInterpreter(cwd) : undefined,
    config.sandbox ? [config.cwd, ...config.sandbox.writable] : undefined,
  );
  // A protocol runtime's other names map to its own (docs/runtimes.md).
  const runtimeAliases = Object.fromEntries(
    config.runtimes.flatMap((runtime) => runtime.aliases.map((alias) => [alias, runtime.name])),
  );
  // Built when first needed: the usual `{ cells: [{ code }] }` call is checked without it (input-schema.ts).
  let zodSchema: EvalInputSchema | undefined;
  const getZodSchema = () => {
    zodSchema ??= createEvalInputSchema({
      languages: config.enabled,
      maxTimeout: config.maxTimeout,
      defaultTimeout: config.defaultTimeout,
      isOpenLanguage: remote !== undefined,
      aliases: runtimeAliases,
    });
    return zodSchema;
  };
  const isManagerOwned = config.manager === undefined;
  // A cell's time: this tool's default and ceiling (the parse clamps to them), the grace of the manager's kernels.
  const timeLimits: CellTimeLimits = {
    defaultTimeoutSec: config.defaultTimeout,
    maxTimeoutSec: config.maxTimeout,
    interruptGraceMs: manager.timeLimits.interruptGraceMs,
  };
  const exclusive = new ConcurrencyLimiter(1);
  const pinned = new Set<string>();
  let store: ArtifactStore | undefined;
  let isDisposed = false;
  let forkSerial = 0;
  let disposing: Promise<void> | undefined;

  const advertised = (): CellLanguage[] => backends.advertisedLanguages;
  const schemaFor = (languages: readonly CellLanguage[]) =>
    toInputJsonSchema(
      createEvalInputSchema({
        languages,
        maxTimeout: config.maxTimeout,
        defaultTimeout: config.defaultTimeout,
        isOpenLanguage: remote !== undefined,
        aliases: runtimeAliases,
      }),
    );

  // The Jupyter token is hidden wherever it came from (a file, the option): never in a result.
  const jupyterToken = config.jupyter?.token;
  const secretReader = createSecretReader(
    jupyterToken !== undefined ? { ...config.env, EVALKIT_JUPYTER_TOKEN: jupyterToken } : config.env,
  );

  const getStore = (): ArtifactStore => {
    store ??= createArtifactStore(config.artifactsDir !== undefined ? { dir: config.artifactsDir } : {});
    return store;
  };

  const ownJobs = new Set<EvalJob>();
  const pinArtifacts = (result: EvalToolResult) => {
    // Artifacts this tool handed out stay readable while it lives (pruning skips pinned ones).
    for (const cell of result.details.cells) {
      const uri = cell.truncated?.artifact;
      if (uri !== undefined && !pinned.has(uri)) {
        pinned.add(uri);
        getStore().pin(uri.replace(/^artifact:\/\//, ""));
      }
    }
    return result;
  };

  const execute = (input: unknown, context: EvalExecuteContext = {}): Promise<EvalToolResult> => {
    if (isDisposed) return Promise.reject(new EvalkitError("DISPOSED", "the eval tool was disposed"));
    try {
      return executeParsed(parseEvalRequest(getZodSchema, input), context);
    } catch (err) {
      return Promise.reject(err);
    }
  };

  const executeParsed = async (
    request: EvalRequest,
    context: EvalExecuteContext = {},
  ): Promise<EvalToolResult> => {
    if (isDisposed) throw new EvalkitError("DISPOSED", "the eval tool was disposed");
    const { signal } = context;
    const group = sessionGroup(config.sessionId, config.cwd);
    // Only job inputs and yieldAfter calls need it: a plain call makes none.
    const jobContext = () => ({
      registry: manager.jobs,
      sessionId: config.sessionId,
      group,
      signal,
      onUpdate: context.onUpdate,
    });
    if (isJobInput(request)) return pinArtifacts(await continueJob(jobContext(), request));
    const parsed: EvalInput = request;
    assertSessionFree(manager.jobs, group);
    let release: () => void;
    try {
      release = await exclusive.acquire(signal);
    } catch {
      return cancelledBeforeStart(
        parsed.cells,
        signal?.aborted && exclusive.inFlight === 0
          ? "eval call cancelled before it started: its signal was already aborted"
          : "eval call cancelled while waiting for an earlier call to finish",
      );
    }
    try {
      if (isDisposed) throw new EvalkitError("DISPOSED", "the eval tool was disposed");
      if (config.sandbox !== undefined) await checkSandboxPreconditions(config);
      // A job may have started while this call waited for the previous one.
      assertSessionFree(manager.jobs, group);
      // Read afresh for every call (a secret set in the host environment a moment ago is hidden), and only when
      // some output is long enough to hold one.
      const secrets = secretReader.forCall();
      const run = (
        callSignal: AbortSignal | undefined,
        onUpdate: EvalExecuteContext["onUpdate"],
        tap?: RunCallTap,
      ) => {
        const callRequest: SessionCallRequest = { sessionId: config.sessionId, cwd: config.cwd };
        if (callSignal) callRequest.signal = callSignal;
        // A shared manager has its own handlers (or none): this tool's go with each of its calls.
        if (!isManagerOwned && config.handlers !== undefined) callRequest.bridge = config.handlers;
        const runContext: RunCallContext = {
          input: parsed,
          // Made from the tool's validated options: the manager need not check it again.
          openCall: () => manager.openValidatedCall(callRequest),
          backends,
          timeLimits,
          output: config.output,
          secrets: secrets.list,
          artifactsDir: config.artifactsDir,
          store: getStore(),
          redact: secrets.redact,
          onUpdate,
          updateIntervalMs: config.updateIntervalMs,
        };
        // A job's outputs are collected by its tap; only a direct call streams them to the caller.
        if (tap === undefined && context.onOutput) runContext.onOutput = context.onOutput;
        if (tap) runContext.tap = tap;
        if (context.continueOnError === true) runContext.continueOnError = true;
        return runEvalCall(runContext);
      };
      if (parsed.yieldAfter === undefined) return pinArtifacts(await run(signal, context.onUpdate));
      const result = await runYieldingCall(
        jobContext(),
        parsed,
        (tap, onUpdate, jobSignal) => run(jobSignal, onUpdate, tap),
        (job) => {
          ownJobs.add(job);
          void job.ended.then(() => ownJobs.delete(job));
        },
      );
      return pinArtifacts(result);
    } finally {
      release();
    }
  };

  return {
    name: "eval",
    get description() {
      return buildEvalDescription({
        languages: advertised(),
        mode: manager.mode,
        defaultTimeout: config.defaultTimeout,
        maxTimeout: config.maxTimeout,
        ...(config.runtimes.length > 0 ? { runtimes: config.runtimes } : {}),
        ...(remote
          ? {
              jupyter: {
                languages: (jupyterServer?.knownCatalog?.languages ?? []).map((l) => ({
                  language: l.key,
                  displayName: l.displayName,
                })),
              },
            }
          : {}),
      });
    },
    get inputSchema() {
      return schemaFor(advertised());
    },
    get zodSchema() {
      return getZodSchema();
    },
    execute,
    executeParsed,
    checkpoint: (name) => travel(execute, { checkpoint: name }),
    restore: (name) => travel(execute, { restore: name }),
    undo: () => travel(execute, { undo: true }),
    fork: () =>
      forkEvalTool({
        config,
        isDisposed: () => isDisposed,
        serial: ++forkSerial,
        exclusive,
        manager,
        create: createEvalToolFromSettings,
      }),
    checkBackends: () => backends.status(),
    async warm() {
      if (isDisposed || manager.mode !== "session") return;
      try {
        const route = await backends.route(undefined);
        if (route.kind !== "run" || isDisposed) return;
        // The checks a call makes before its first cell: never warm a kernel the call would refuse.
        if (config.sandbox !== undefined) await checkSandboxPreconditions(config);
        await manager.warm({ sessionId: config.sessionId, cwd: config.cwd, language: route.language });
      } catch {
        // The first call starts the kernel again and reports why it cannot.
      }
    },
    dispose() {
      disposing ??= (async () => {
        isDisposed = true;
        // Jobs end with their tool: cancelled through the usual ladder (a shared manager stays up).
        for (const job of ownJobs) job.cancel();
        if (isManagerOwned) await manager.dispose();
        await Promise.all([...ownJobs].map((job) => job.ended));
        for (const uri of pinned) store?.unpin(uri.replace(/^artifact:\/\//, ""));
        pinned.clear();
      })();
      return disposing;
    },
  };
}

function cancelledBeforeStart(
  cells: { language?: CellLanguage; title?: string }[],
  reason: string,
): EvalToolResult {
  const results = cells.map((cell, index) => {
    return {
      index,
      ...(cell.title !== undefined ? { title: cell.title } : {}),
      language: cell.language ?? ("py" as const),
      status: index === 0 ? ("cancelled" as const) : ("skipped" as const),
      executionCount: null,
      durationMs: 0,
      text: "",
      outputs: [],
      ...(index === 0 ? { notices: [reason] } : {}),
    };
  });
  return { content: buildContent(results, []), details: { ok: false, cells: results } };
}
