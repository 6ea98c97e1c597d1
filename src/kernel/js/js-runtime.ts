// The JS runtime description: node with frames on fd 3 and raw stdout/stderr pipes ordered by sync markers, and
// the hooks only JS has: the host rewrites each cell (its runner has no parser), maps the rewrite's columns back
// in tracebacks, counts cells itself (the count names the cell's file) and keeps output made between cells.
import path from "node:path";
import { EvalkitError } from "../../errors.js";
import { isDirectory } from "../../runtime/find-executable.js";
import type { CellRequest, ConnectionEvents, RuntimeDescription } from "../client/runtime-description.js";
import type { ExecuteOptions } from "../kernel.js";
import { decodeRunnerFrameObject } from "../wire/runner-frames.js";
import { CellColumnMap } from "./cell-columns.js";
import { JS_INTERRUPT_GRACE_MS, JS_START_TIMEOUT_MS, type JsKernelOptions } from "./js-kernel-options.js";
import { JsKernelProcess } from "./js-kernel-process.js";
import { buildJsLaunch } from "./js-launch.js";
import { type RewrittenCell, rewriteJsCell } from "./js-rewrite.js";

/** JS over the one client (one per JsKernel). */
export class JsRuntime implements RuntimeDescription {
  readonly name = "JS";
  readonly language = "js";
  // A synchronous loop holds node's only thread: SIGINT (breakOnSigint) ends it; the frame reaches awaits.
  readonly interrupt = "signal+frame";
  readonly interruptGraceMs = JS_INTERRUPT_GRACE_MS;
  readonly startTimeoutMs: number;
  readonly retainStreamBytes: number | undefined;
  // A cell runs in node's own process and can write fd 3 (`fs.writeSync(3, …)`): outcome frames carry the secret.
  readonly echoesNonce = true;
  readonly hasIsComplete = false;
  readonly restartsOnExecute = true;
  readonly countsCellsOnHost = true;
  readonly keepsStrayOutput = true;
  private readonly columns = new CellColumnMap();
  /** The cell prepareCell rewrote, for the execute frame that follows (cells run one at a time). */
  private prepared: RewrittenCell | undefined;

  constructor(
    private readonly options: JsKernelOptions,
    readonly cwd: string,
  ) {
    this.startTimeoutMs = options.startTimeoutMs ?? JS_START_TIMEOUT_MS;
    this.retainStreamBytes = options.retainStreamBytes;
  }

  async launch(events: ConnectionEvents): Promise<JsKernelProcess> {
    const launch = await buildJsLaunch(this.options, this.cwd);
    try {
      return new JsKernelProcess({
        ...launch,
        cwd: this.cwd,
        onItem: (item) => {
          if (item.kind === "text") {
            // Stream text of node's own fd 1/2 names no cell: the client gives it to the running one.
            events.onFrame({ type: item.name, id: "", data: item.text }, false);
            return;
          }
          try {
            events.onFrame(
              decodeRunnerFrameObject(item.frame) as Parameters<ConnectionEvents["onFrame"]>[0],
              false,
            );
          } catch {
            // a frame no runner sends (a cell wrote fd 3): dropped
          }
        },
        onExit: (exit) => events.onExit(exit),
      });
    } catch (err) {
      launch.cgroup?.remove(); // no process will exit to remove it
      throw err;
    }
  }

  prepareCell(code: string, options: ExecuteOptions): void {
    if (options.cwd !== undefined) {
      const target = path.resolve(this.cwd, options.cwd);
      if (!isDirectory(target))
        throw new EvalkitError("CWD_INVALID", `not a directory: ${target}`, { field: "cwd", cwd: target });
    }
    this.prepared = rewriteJsCell(code);
  }

  executeFrame(cell: CellRequest): Record<string, unknown> {
    const rewritten = this.prepared ?? rewriteJsCell(cell.code);
    this.prepared = undefined;
    const { options } = cell;
    const filename = cell.executionCount === null ? "<cell>" : `<cell ${cell.executionCount}>`;
    this.columns.remember(filename, rewritten.columnShifts);
    return {
      type: "execute",
      id: cell.id,
      code: rewritten.code,
      isAsync: rewritten.isAsync,
      hasResult: rewritten.hasResult,
      lineOffset: rewritten.lineOffset,
      filename,
      executionCount: cell.executionCount,
      ...(cell.nonce !== undefined ? { nonce: cell.nonce } : {}),
      ...(options.silent ? { silent: true } : {}),
      ...(options.cwd !== undefined ? { cwd: path.resolve(this.cwd, options.cwd) } : {}),
      ...(options.env ? { env: options.env } : {}),
    };
  }

  mapTraceback(traceback: string[]): string[] {
    return this.columns.map(traceback);
  }
}
