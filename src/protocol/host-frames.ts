// The host → runner frames of the kernel wire protocol (docs/protocol.md), written once as zod schemas.
// The schemas are for types, docs and the conformance suite: the hot path never parses frames with them.
import * as z from "zod";

/** Variables set before a cell runs; `null` unsets one. */
const cellEnv = z.record(z.string(), z.string().nullable());

/** Fields every runner reads from an execute request. */
const executeBase = {
  type: z.literal("execute"),
  /** The cell's id, echoed on every frame the cell causes. */
  id: z.string().min(1),
  /** Source to run (for the JS runner: the host's rewrite of it, see `isAsync`, `hasResult`). */
  code: z.string(),
  /** No result, no history, no execution count. */
  silent: z.boolean().optional(),
  /** Working directory applied before the cell. */
  cwd: z.string().optional(),
  env: cellEnv.optional(),
};

/** Execute request to the Python runner (`type` may be left out: every frame without one is an execute). */
export const pythonExecuteFrame = z
  .strictObject({
    ...executeBase,
    type: executeBase.type.optional(),
    /** A fresh random secret echoed on the cell's `result`, `error` and `done` (forged frames). */
    nonce: z.string().optional(),
    /** False: the cell does not enter the history and does not advance the execution count. */
    storeHistory: z.boolean().optional(),
    /** True: `input()` sends `input_request` instead of failing. */
    allowStdin: z.boolean().optional(),
  })
  .meta({ id: "PythonExecuteFrame", description: "Run a cell (Python runner)." });

/** Execute request to the JS runner: the host has rewritten the cell (acorn), so the runner needs no parser. */
export const jsExecuteFrame = z
  .strictObject({
    ...executeBase,
    /** The code evaluates to a promise (an async wrapper) whose value is the cell's value. */
    isAsync: z.boolean(),
    /** The last statement is an expression: its value is the cell's `result`. */
    hasResult: z.boolean(),
    /** Added to line numbers in stack traces, so they point at the user's lines. */
    lineOffset: z.number().int(),
    /** File name shown in stack traces, `<cell N>`. */
    filename: z.string(),
    /** The count echoed on `done` (the host counts JS cells). */
    executionCount: z.number().int().nonnegative().nullable().optional(),
    /** A fresh random secret echoed on the cell's `result`, `error` and `done` (forged frames). */
    nonce: z.string().optional(),
  })
  .meta({ id: "JsExecuteFrame", description: "Run a cell (JS runner)." });

export const interruptFrame = z
  .strictObject({
    type: z.literal("interrupt"),
    /** The cell meant; a cell that has not started yet is cancelled as it starts. */
    id: z.string().optional(),
  })
  .meta({ id: "InterruptFrame", description: "Interrupt the running (or a queued) cell." });

export const replyFrame = z
  .union([
    z.strictObject({ type: z.literal("reply"), callId: z.string(), ok: z.literal(true), value: z.unknown() }),
    z.strictObject({
      type: z.literal("reply"),
      callId: z.string(),
      ok: z.literal(false),
      error: z.strictObject({ name: z.string(), message: z.string() }),
    }),
  ])
  .meta({ id: "ReplyFrame", description: "The host's answer to a bridge `call`." });

export const inputReplyFrame = z
  .union([
    z.strictObject({ type: z.literal("input_reply"), id: z.string(), value: z.string() }),
    z.strictObject({ type: z.literal("input_reply"), id: z.string(), error: z.string() }),
  ])
  .meta({ id: "InputReplyFrame", description: "The answer to `input_request`; `error` makes input() fail." });

export const isCompleteFrame = z
  .strictObject({ type: z.literal("is_complete"), id: z.string(), code: z.string() })
  .meta({ id: "IsCompleteFrame", description: "Is this complete input? (Python runner)" });

export const completeFrame = z
  .strictObject({
    type: z.literal("complete"),
    id: z.string(),
    code: z.string(),
    /** Offset in `code` where completion happens (the host counts UTF-16 code units, as JS strings do). */
    cursor: z.number().int().nonnegative(),
  })
  .meta({ id: "CompleteFrame", description: "Tab completion at `cursor` from the live namespace." });

export const exitFrame = z
  .strictObject({ type: z.literal("exit") })
  .meta({ id: "ExitFrame", description: "Run exit handlers, end what the cells started, exit 0." });

const checkpointName = z.string().min(1).max(200);

export const checkpointFrame = z
  .strictObject({ type: z.literal("checkpoint"), id: z.string(), name: checkpointName })
  .meta({
    id: "CheckpointFrame",
    description: "Fork a parked copy of the interpreter named `name` (docs/checkpoints.md).",
  });

export const restoreFrame = z
  .strictObject({ type: z.literal("restore"), id: z.string(), name: checkpointName.nullable() })
  .meta({
    id: "RestoreFrame",
    description: "A copy of checkpoint `name` (null: a fresh interpreter) becomes the runner.",
  });

export const dropFrame = z
  .strictObject({
    type: z.literal("drop"),
    id: z.string(),
    name: checkpointName,
    wait: z.boolean().optional(),
  })
  .meta({ id: "DropFrame", description: "End checkpoint `name` (`wait: false`: answer before it is gone)." });

export const checkpointInfoFrame = z
  .strictObject({ type: z.literal("checkpoint_info"), id: z.string(), names: z.array(z.string()) })
  .meta({
    id: "CheckpointInfoFrame",
    description: "The pid and private memory of each named checkpoint and the root.",
  });

/** Every frame a host may send. */
export const hostFrame = z
  .union([
    pythonExecuteFrame,
    jsExecuteFrame,
    interruptFrame,
    replyFrame,
    inputReplyFrame,
    isCompleteFrame,
    completeFrame,
    exitFrame,
    checkpointFrame,
    restoreFrame,
    dropFrame,
    checkpointInfoFrame,
  ])
  .meta({ id: "HostFrame", description: "Any frame from the host to a runner." });

export type PythonExecuteFrame = z.infer<typeof pythonExecuteFrame>;
export type JsExecuteFrame = z.infer<typeof jsExecuteFrame>;
export type InterruptFrame = z.infer<typeof interruptFrame>;
export type ReplyFrame = z.infer<typeof replyFrame>;
export type InputReplyFrame = z.infer<typeof inputReplyFrame>;
export type IsCompleteFrame = z.infer<typeof isCompleteFrame>;
export type CompleteFrame = z.infer<typeof completeFrame>;
export type ExitFrame = z.infer<typeof exitFrame>;
export type HostFrame = z.infer<typeof hostFrame>;
