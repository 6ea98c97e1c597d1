// evalkit's public API: explicit named exports only. Everything else under src/ is internal.

/** The eval result shape (DESIGN.md §3.2): one `CellResult` per cell inside `EvalDetails`. */
export type {
  CellLanguage,
  CellResult,
  LocalLanguage,
  CellStatus,
  CellUsage,
  CheckpointDetails,
  CheckpointSummary,
  EvalDetails,
  TruncationInfo,
} from "./contracts/cell-result.js";
/** What cells produce, in order: streams, displays, results, errors, status events. */
export type {
  CellErrorInfo,
  CellOutput,
  ClearOutput,
  DisplayOutput,
  ErrorOutput,
  KernelOutput,
  MimeBundle,
  StatusOutput,
  StreamOutput,
} from "./contracts/outputs.js";
/** The MIME type that carries prelude status events (`{op, ...}`) inside display bundles. */
export { STATUS_MIME } from "./contracts/outputs.js";
export type { EvalkitErrorCode, EvalkitErrorDetails } from "./errors.js";
// Errors and the result contract
/** The one error class evalkit throws, with a stable `code`; `isEvalkitError` narrows to it. */
export { EvalkitError, isEvalkitError } from "./errors.js";
/** What a runtime description tells the one kernel client (advanced: a transport of your own). */
export type {
  CellFrame,
  CellRequest,
  ConnectionEvents,
  InterruptMode,
  RuntimeConnection,
  RuntimeDescription,
} from "./kernel/client/runtime-description.js";
/** The one kernel client every runtime runs on (PythonKernel and JsKernel are two of its descriptions). */
export { KernelClient } from "./kernel/client/kernel-client.js";
export type { JsKernelOptions } from "./kernel/js/js-kernel.js";
/** One retained JavaScript context in its own `node` process. */
export { JsKernel } from "./kernel/js/js-kernel.js";
/** The contract both kernels fulfil. */
export type {
  BridgeCall,
  BridgeCallHandler,
  ExecuteOptions,
  ExecuteOutcome,
  Kernel,
  KernelExit,
} from "./kernel/kernel.js";
export type { PythonKernelInfo, PythonKernelOptions } from "./kernel/python/python-kernel.js";
// Kernels
/** One retained Python subprocess speaking the NDJSON protocol (docs/protocol.md). */
export { PythonKernel } from "./kernel/python/python-kernel.js";
export type { RuntimeDefinition, RuntimeSpec } from "./kernel/runtimes/define-runtime.js";
/** Describes a protocol runner (docs/runtimes.md) for the `runtimes` option of SessionManager and createEvalTool. */
export { defineRuntime } from "./kernel/runtimes/define-runtime.js";
export type { RuntimeKernelOptions } from "./kernel/runtimes/protocol-runtime.js";
/** A kernel of a described protocol runner, on its own (sessions and the tool make theirs from `runtimes`). */
export { createRuntimeKernel } from "./kernel/runtimes/protocol-runtime.js";
/** Artifact ids and `artifact://` URIs. */
export { formatArtifactUri, parseArtifactId, resolveArtifactDir } from "./output/artifacts/artifact-ids.js";
export type { ArtifactInfo, ArtifactStore, ArtifactStoreOptions } from "./output/artifacts/artifact-store.js";
/** The artifact store: read full outputs back by byte range, list, prune. */
export { createArtifactStore, listArtifacts, readArtifact } from "./output/artifacts/artifact-store.js";
/** HTML → markdown as the model view uses it (GFM tables). */
export { convertHtmlToMarkdown } from "./output/display/display-html.js";
export type { DisplayImage, DisplayParts, DisplayRenderOptions } from "./output/display/display-render.js";
/** MIME bundle → model text (markdown > plain > HTML via turndown), images, JSON, status events. */
export { collectDisplayParts, renderBundleText, renderOutputText } from "./output/display/display-render.js";
/** MIME bundle → what a person at a terminal reads: IPython's text/plain unless it is a bare default repr. */
export { renderBundleTextForTerminal } from "./output/display/display-render.js";
/** Applies display-id updates and clear_output to a list of outputs, giving the latest state. */
export { applyDisplayUpdates, toCellOutputs } from "./output/display/display-updates.js";
export type { OutputSinkOptions, OutputSinkResult } from "./output/streams/output-sink.js";
// Output: bounded text, artifacts, redaction, display bundles
/** Streams a cell's text into a bounded model view plus a raw artifact. */
export { createOutputSink, OutputSink } from "./output/streams/output-sink.js";
/** Replaces secret values with `[REDACTED:NAME]`, whole-text or streaming. */
export { createRedactor, createStreamRedactor } from "./output/streams/redact.js";
/** Sanitises text for a model: CRLF, `\r` progress collapse, ANSI/control characters. */
export { sanitizeText } from "./output/streams/sanitize.js";
/** Whether to colour a stream (isTTY, NO_COLOR, TERM, FORCE_COLOR). */
export { shouldUseColor } from "./render/color.js";
export type { InteractiveRenderOptions } from "./render/interactive-render.js";
/** Terminal renderer pieces: live 20-line preview, `%more`, tracebacks, notices, spinner. */
export { collapseForTerminal, LivePreview, renderTraceback } from "./render/interactive-render.js";
export type { ToolRenderCell, ToolRenderOptions } from "./render/tool-render.js";
// Renderers (pure)
/** Transcript renderer: results and code to text with 10-line previews and notices. */
export { renderToolCell, renderToolTranscript } from "./render/tool-render.js";
/** filterEnv plus the chosen interpreter's venv activation (PATH, VIRTUAL_ENV). */
export { buildKernelEnv } from "./runtime/child-env.js";
export type { FilterEnvOptions, SecretValue } from "./runtime/env-filter.js";
/** The kernel's environment: allowlist minus secrets, plus the embedder's explicit extras. */
export { collectSecretValues, filterEnv, isSecretName } from "./runtime/env-filter.js";
/** The chosen interpreter, why it was chosen, and the rejected candidates. */
export type { PythonReport, RejectedPython, ResolvedPython } from "./runtime/python-types.js";
export type { ResolvePythonOptions } from "./runtime/resolve-python.js";
// Runtime: which interpreter, which environment
/** Finds the interpreter evalkit would run (explicit, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, ./venv, managed venv, PATH). */
export { describeCandidates, resolvePython } from "./runtime/resolve-python.js";
/** Handlers a host registers so cells can call `agent()`, `completion()` and `tool.*`. */
export type {
  BridgeHandlerContext,
  HostBridgeHandler,
  HostBridgeHandlers,
} from "./session/bridge-handlers.js";
/** `clampTimeoutSec` applies the 1..max rule; `resolveCellTiming` gives a cell's budget and interrupt grace once. */
export {
  type CellTiming,
  type CellTimeLimits,
  clampTimeoutSec,
  resolveCellTiming,
} from "./session/cell-timing.js";
/** A cell's time budget with reference-counted pause/resume. */
export { CellWatchdog } from "./session/cell-watchdog.js";
// The MCP server
/**
 * The eval tool as an MCP server (stdio): tool `eval`, `artifact://` resources, sampling-backed completion().
 * Both load the MCP SDK on first call, so `createEvalMcpServer` resolves asynchronously.
 */
export { createEvalMcpServer, runMcpServer } from "./mcp/lazy-entry.js";
export type { EvalMcpServer, EvalMcpServerOptions, RunMcpServerOptions } from "./mcp/server.js";
/**
 * The MCP server over Streamable HTTP for many remote clients (`evalkit mcp --http`): bearer token, Host/Origin
 * allow-lists, one isolated session each, resumable streams, /healthz and /metrics (docs/mcp.md, "Over HTTP").
 */
export { runMcpHttpServer, startMcpHttpServer } from "./mcp/lazy-entry.js";
export type { McpHttpServer, McpHttpServerOptions, RunMcpHttpServerOptions } from "./mcp/http-server.js";

// Sessions, timeouts and the host bridge
/** Owns every kernel: retained sessions or per-call kernels, queues, eviction, crash replacement, timeouts. */
export { SessionManager } from "./session/session-manager.js";
/** A lease on one session's queue: run several cells back to back, then `close()`. */
export { SessionCall } from "./session/session-call.js";
/** Names one kernel of a session (`manager.peekKernel(ref)`): session id, working directory and language. */
export type { SessionKernelRef } from "./session/session-assist.js";
/** Checkpoint settings (`checkpoints` option) and the checkpoints of one kernel (docs/checkpoints.md). */
export type { CheckpointBook, CheckpointOptions } from "./session/checkpoint-book.js";
export type {
  KernelMode,
  SessionCellOutcome,
  SessionCellStatus,
  SessionManagerOptions,
  /** What a manager's kernels run with (`manager.settings`): what a tool sharing it must agree with. */
  SessionManagerSettings,
  SessionRunRequest,
} from "./session/session-types.js";
/** Backend availability reported by `tool.checkBackends()` (with a Jupyter server: its URL and languages). */
export type { BackendState, EvalBackendStatus, JupyterBackendState } from "./tool/backends.js";
/** The `jupyter` option: run cells on a Jupyter server's kernels (docs/jupyter.md). */
export type { JupyterOption } from "./tool/jupyter-options.js";
/** The model-facing description for a given set of languages, mode and timeouts. */
export { buildEvalDescription } from "./tool/description.js";
export type { EvalExecuteContext, EvalTool } from "./tool/eval-tool.js";
// The eval tool
/** Creates the eval tool: JSON Schema + description for agents, exclusive `execute`, `dispose`. */
export { createEvalTool } from "./tool/eval-tool.js";
/** Formats zod issues as `field.path: expected X, got Y` lines. */
export { formatZodIssues } from "./tool/format-issues.js";
export type {
  EvalCellInput,
  EvalInput,
  EvalInputSchema,
  EvalInputSchemaOptions,
  EvalJobInput,
  EvalRequest,
  JsonSchemaObject,
} from "./tool/input-schema.js";
/** The tool's input schema: build it, convert it to JSON Schema, validate input with field-naming errors. */
export {
  createEvalInputSchema,
  DEFAULT_CELL_TIMEOUT_SEC,
  DEFAULT_MAX_TIMEOUT_SEC,
  parseEvalInput,
  safeParseEvalInput,
  toInputJsonSchema,
} from "./tool/input-schema.js";
/** Content blocks a model reads: text and base64 images. */
export type { EvalContent, EvalImageContent, EvalTextContent } from "./tool/result-content.js";
/** What `execute()` resolves to, and what `onUpdate` receives while cells run. */
export type { EvalOutputEvent, EvalProgress, EvalToolResult } from "./tool/run-call.js";
/** Options of createEvalTool (interpreter, mode, backends, timeouts, handlers, output limits, launcher...). */
export type { EvalOutputOptions, EvalToolOptions } from "./tool/tool-options.js";
/** The sandbox and resource-limit options (docs/sandbox.md), and whether a sandbox can be had here. */
export { probeSandbox, type SandboxProbe } from "./runtime/sandbox-probe.js";
export type { ResourceLimits, SandboxOptions, SandboxSetting } from "./runtime/sandbox-types.js";
