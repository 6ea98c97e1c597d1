// The library's time travel (docs/checkpoints.md): `checkpoint`/`restore`/`undo` as calls, and `fork()`.
import type { CheckpointDetails } from "../contracts/cell-result.js";
import { EvalkitError, type EvalkitErrorCode } from "../errors.js";
import type { ConcurrencyLimiter } from "../session/concurrency-limiter.js";
import { createDefaultKernel } from "../session/default-kernels.js";
import type { SessionManager } from "../session/session-manager.js";
import type { EvalTool } from "./eval-tool.js";
import type { EvalToolResult } from "./run-call.js";
import type { ResolvedToolOptions } from "./tool-options.js";

/** One call without cells, its report, or its error thrown. */
export async function travel(
  execute: (input: unknown) => Promise<EvalToolResult>,
  input: Record<string, unknown>,
): Promise<CheckpointDetails> {
  const { details } = await execute(input);
  const report = details.checkpoints;
  if (report === undefined) throw new EvalkitError("INTERNAL", "the call made no checkpoint report");
  if (report.error) {
    throw new EvalkitError(report.error.code as EvalkitErrorCode, report.error.message, {
      checkpoints: report,
    });
  }
  return report;
}

/** What `fork()` needs of the tool it forks. */
export interface ForkContext {
  /** The tool's settings, parsed once when it was made; the fork is made from them, not parsed again. */
  config: ResolvedToolOptions;
  isDisposed: () => boolean;
  /** N of the fork point `fork-N` and of the session `<id>/fork-N`. */
  serial: number;
  /** The tool's one-call-at-a-time gate: the fork point is taken between calls. */
  exclusive: ConcurrencyLimiter;
  manager: SessionManager;
  create: (settings: ResolvedToolOptions) => EvalTool;
}

/**
 * Takes checkpoint `fork-N` of the tool's session and returns a tool on session `<id>/fork-N` whose first Python
 * kernel starts from it (a relay hands its stdio to the checkpoint: python/fork_relay.py).
 */
export async function forkEvalTool(ctx: ForkContext): Promise<EvalTool> {
  const { config, serial } = ctx;
  if (ctx.isDisposed()) throw new EvalkitError("DISPOSED", "the eval tool was disposed");
  const why =
    config.checkpoints === undefined
      ? "it needs the `checkpoints` option"
      : config.sandbox !== undefined
        ? "a sandboxed session cannot be forked yet (the copy would have to join the same sandbox)"
        : config.manager !== undefined
          ? "a tool on a shared session manager cannot be forked"
          : undefined;
  if (why !== undefined) throw new EvalkitError("CHECKPOINTS_UNSUPPORTED", `fork: ${why}`);
  const release = await ctx.exclusive.acquire();
  let point: { token: string; name: string };
  try {
    const call = ctx.manager.openCall({ sessionId: config.sessionId, cwd: config.cwd });
    try {
      point = await call.withCheckpoints((book) => book.forkPoint(`fork-${serial}`));
    } finally {
      await call.close();
    }
  } finally {
    release();
  }
  const base = config.createKernel ?? createDefaultKernel;
  let isFirst = true;
  return ctx.create({
    ...config,
    checkpoints: undefined,
    sessionId: `${config.sessionId}/fork-${serial}`,
    // The first Python kernel of the fork is the copy; a later one (after a reset or a crash) starts fresh.
    createKernel: (spec) => {
      if (spec.language !== "py" || !isFirst) return base(spec);
      isFirst = false;
      return base({ ...spec, forkOf: point });
    },
  });
}
