// The runner → host frames of the kernel wire protocol (docs/protocol.md), written once as zod schemas.
// The schemas are for types, docs and the conformance suite: the host decodes frames by hand on its hot path.
import * as z from "zod";

/**
 * Fields of one runner frame plus `sync`: the JS runner numbers sync points to order fd 3 against its
 * stdout/stderr pipes (a runner whose streams travel as frames leaves it out).
 */
function frame<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject({ ...shape, sync: z.number().int().positive().optional() });
}

/** The id of the cell a frame belongs to. */
const cellId = z.string().min(1);
/** MIME type → value: text for text types, base64 for binary ones, any JSON for `application/json`. */
const mimeBundle = z.record(z.string(), z.unknown()).meta({ id: "MimeBundle" });
/** The execute request's secret, echoed by the Python runner on `result`, `error` and `done`. */
const nonce = z.string().optional();

export const readyFrame = frame({
  type: z.literal("ready"),
  pid: z.number().int().positive(),
  /** Protocol version: 1. */
  protocol: z.literal(1),
  cwd: z.string(),
  /** Python runner: its version `3.11.7`, `sys.implementation.name` and `sys.executable`. */
  python: z.string().optional(),
  implementation: z.string().optional(),
  executable: z.string().optional(),
  /** JS runner: `process.version`. */
  node: z.string().optional(),
  /** Python runner started with checkpoints (docs/checkpoints.md), and the token naming its checkpoint sockets. */
  checkpoints: z.boolean().optional(),
  checkpointToken: z.string().optional(),
})
  // Any other runner names its language's version in a text field of its own (`"perl": "5.36.0"`).
  .catchall(z.string())
  .meta({ id: "ReadyFrame", description: "Start-up finished; the first frame, sent once." });

export const startedFrame = frame({ type: z.literal("started"), id: cellId }).meta({
  id: "StartedFrame",
  description: "The cell began (optional: a runner may go straight to the cell's first output).",
});

export const streamFrame = frame({
  type: z.enum(["stdout", "stderr"]),
  id: cellId,
  /** At most 32 Ki characters; undecodable bytes as lone surrogates U+DC80–U+DCFF. */
  data: z.string(),
}).meta({ id: "StreamFrame", description: "Stream text of a cell (runners without raw stream pipes)." });

/** What a display and a result carry alike: a MIME bundle and how it relates to earlier displays. */
const bundleFields = {
  id: cellId,
  bundle: mimeBundle,
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Names an updatable display. */
  displayId: z.string().optional(),
  /** Replace the earlier outputs with this `displayId` instead of adding one. */
  update: z.boolean().optional(),
  executionCount: z.number().int().nullable().optional(),
};

export const displayFrame = frame({ type: z.literal("display"), ...bundleFields }).meta({
  id: "DisplayFrame",
  description: "A rich output.",
});

export const resultFrame = frame({ type: z.literal("result"), ...bundleFields, nonce }).meta({
  id: "ResultFrame",
  description: "The value of the cell's last expression.",
});

export const clearOutputFrame = frame({
  type: z.literal("clear_output"),
  id: cellId,
  /** Clear when the next output arrives instead of now. */
  wait: z.boolean(),
}).meta({ id: "ClearOutputFrame", description: "Clear the cell's outputs so far (Python runner)." });

export const errorFrame = frame({
  type: z.literal("error"),
  id: cellId,
  ename: z.string(),
  evalue: z.string(),
  /** Lines, runner frames removed. */
  traceback: z.array(z.string()),
  nonce,
}).meta({ id: "ErrorFrame", description: "The cell raised." });

export const cellUsage = z
  .strictObject({ cpuMs: z.number().nonnegative(), peakRssBytes: z.number().int().nonnegative() })
  .meta({ id: "CellUsage" });

export const doneFrame = frame({
  type: z.literal("done"),
  id: cellId,
  status: z.enum(["ok", "error"]),
  executionCount: z.number().int().nullable(),
  /** True when an interrupt ended the cell. */
  cancelled: z.boolean(),
  usage: cellUsage.optional(),
  nonce,
}).meta({ id: "DoneFrame", description: "The cell ended: always its last frame." });

export const callFrame = frame({
  type: z.literal("call"),
  id: cellId,
  callId: z.string().min(1),
  /** `agent`, `completion`, `tool` (`params: {name, args}`). */
  method: z.string(),
  params: z.record(z.string(), z.unknown()),
}).meta({ id: "CallFrame", description: "A bridge call from the cell; the host answers with `reply`." });

export const cancelCallFrame = frame({
  type: z.literal("cancel_call"),
  id: cellId,
  callId: z.string().min(1),
}).meta({ id: "CancelCallFrame", description: "The caller was interrupted: abort that handler." });

export const inputRequestFrame = frame({
  type: z.literal("input_request"),
  id: cellId,
  prompt: z.string(),
  password: z.boolean(),
}).meta({ id: "InputRequestFrame", description: "input()/getpass() while the cell allows stdin." });

export const isCompleteReplyFrame = frame({
  type: z.literal("is_complete_reply"),
  id: z.string(),
  status: z.enum(["complete", "incomplete", "invalid"]),
  /** The indent to offer for the next line (`incomplete`). */
  indent: z.string(),
}).meta({ id: "IsCompleteReplyFrame", description: "Answer to `is_complete`." });

export const completeReplyFrame = frame({
  type: z.literal("complete_reply"),
  id: z.string(),
  /** Replace `code[start:cursor]` with one of `matches`. */
  start: z.number().int().nonnegative(),
  /** Sorted, at most 500. */
  matches: z.array(z.string()),
}).meta({ id: "CompleteReplyFrame", description: "Answer to `complete`." });

export const protocolErrorFrame = frame({
  type: z.literal("protocol_error"),
  reason: z.string(),
}).meta({ id: "ProtocolErrorFrame", description: "The runner could not use a frame; it keeps serving." });

export const checkpointReplyFrame = frame({
  type: z.literal("checkpoint_reply"),
  id: z.string(),
  ok: z.boolean(),
  /** The checkpoint the request named (`null`: the root, a fresh interpreter). */
  name: z.string().nullable().optional(),
  /** `checkpoint`: the parked copy's pid and what a restore of it cannot carry. */
  pid: z.number().int().positive().optional(),
  limits: z.array(z.string()).optional(),
  /** The runner that serves cells after the request (a restore changes it). */
  livePid: z.number().int().positive().optional(),
  /** `checkpoint_info`: each named checkpoint's pid and private memory, then the root's (`name: null`). */
  checkpoints: z
    .array(
      z.strictObject({
        name: z.string().nullable(),
        pid: z.number().int().positive().optional(),
        privateBytes: z.number().int().nonnegative().nullable().optional(),
        missing: z.boolean().optional(),
        error: z.string().optional(),
      }),
    )
    .optional(),
  error: z.string().optional(),
  /** No checkpoint has that name. */
  missing: z.boolean().optional(),
}).meta({
  id: "CheckpointReplyFrame",
  description: "Answer to `checkpoint`, `restore`, `drop`, `checkpoint_info`.",
});

export const runnerExitFrame = frame({
  type: z.literal("runner_exit"),
  pid: z.number().int().positive(),
  exitCode: z.number().int().nullable(),
  /** Signal number. */
  signal: z.number().int().nullable(),
}).meta({
  id: "RunnerExitFrame",
  description:
    "The root saw the live runner end (checkpoints on); it reads the host's requests until a restore.",
});

export const syncFrame = frame({
  type: z.literal("sync"),
  sync: z.number().int().positive(),
}).meta({ id: "SyncFrame", description: "A bare sync point (JS runner transport)." });

/** Every frame a runner may send. Hosts ignore types they do not know (forward compatibility). */
export const runnerFrame = z
  .discriminatedUnion("type", [
    readyFrame,
    startedFrame,
    streamFrame,
    displayFrame,
    resultFrame,
    clearOutputFrame,
    errorFrame,
    doneFrame,
    callFrame,
    cancelCallFrame,
    inputRequestFrame,
    isCompleteReplyFrame,
    completeReplyFrame,
    protocolErrorFrame,
    checkpointReplyFrame,
    runnerExitFrame,
    syncFrame,
  ])
  .meta({ id: "RunnerFrame", description: "Any frame from a runner to the host." });

export type ReadyFrameWire = z.infer<typeof readyFrame>;
export type StartedFrame = z.infer<typeof startedFrame>;
export type StreamFrame = z.infer<typeof streamFrame>;
export type DisplayFrame = z.infer<typeof displayFrame>;
export type ResultFrame = z.infer<typeof resultFrame>;
export type ClearOutputFrame = z.infer<typeof clearOutputFrame>;
export type ErrorFrame = z.infer<typeof errorFrame>;
export type DoneFrame = z.infer<typeof doneFrame>;
export type CallFrame = z.infer<typeof callFrame>;
export type CancelCallFrame = z.infer<typeof cancelCallFrame>;
export type InputRequestFrame = z.infer<typeof inputRequestFrame>;
export type IsCompleteReplyFrame = z.infer<typeof isCompleteReplyFrame>;
export type CompleteReplyFrame = z.infer<typeof completeReplyFrame>;
export type ProtocolErrorFrame = z.infer<typeof protocolErrorFrame>;
export type SyncFrame = z.infer<typeof syncFrame>;
export type RunnerFrameWire = z.infer<typeof runnerFrame>;
