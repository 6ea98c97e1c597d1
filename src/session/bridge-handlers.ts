// Host side of the bridge: turns the embedder's agent/completion/tool handlers into a kernel's onCall.
import type { BridgeCall, BridgeCallHandler } from "../kernel/kernel.js";
import { ConcurrencyLimiter } from "./concurrency-limiter.js";
import { linkSignals } from "./linked-signal.js";

/** What a handler gets besides its params. */
export interface BridgeHandlerContext {
  /** Fires when the cell is interrupted, times out, ends or its kernel dies: stop the work then. */
  signal: AbortSignal;
  /** `"agent"`, `"completion"` or `"tool"`. */
  method: string;
  /** The tool's name for `tool` calls. */
  toolName?: string;
}

/**
 * Answers one call from a cell. `agent`/`completion` receive the helper's keyword arguments
 * (`{ prompt, model?, system?, schema? ... }`); a tool receives its `args`. The resolved value travels
 * back as JSON; a thrown error becomes a Python exception carrying its message.
 */
export type HostBridgeHandler = (
  params: Record<string, unknown>,
  context: BridgeHandlerContext,
) => unknown | Promise<unknown>;

/** What an embedding program registers. */
export interface HostBridgeHandlers {
  agent?: HostBridgeHandler;
  completion?: HostBridgeHandler;
  tools?: Record<string, HostBridgeHandler>;
  /** Most handler calls in flight at once across every cell served by these handlers (default 8). */
  concurrency?: number;
}

export const DEFAULT_BRIDGE_CONCURRENCY = 8;

/** Methods whose wait does not count against the cell's timeout (they delegate to slow models). */
const PAUSING_METHODS = new Set(["agent", "completion"]);

/** What one cell lends the dispatcher. */
export interface BridgeCellContext {
  /** Aborts when the cell is cancelled, times out or ends. */
  signal: AbortSignal;
  /** Pauses the cell's watchdog; returns the matching release. */
  pauseTimeout: () => () => void;
}

/** Holds an embedder's handlers and the limiter they share; hands out one call handler per cell. */
export class HostBridge {
  private readonly limiter: ConcurrencyLimiter;

  constructor(private readonly handlers: HostBridgeHandlers = {}) {
    this.limiter = new ConcurrencyLimiter(handlers.concurrency ?? DEFAULT_BRIDGE_CONCURRENCY);
  }

  /** Calls currently running in handlers (not counting those waiting for a slot). */
  get inFlight(): number {
    return this.limiter.inFlight;
  }

  /** The kernel-facing handler for one cell. */
  createCallHandler(cell: BridgeCellContext): BridgeCallHandler {
    return (call) => this.dispatch(call, cell);
  }

  private async dispatch(call: BridgeCall, cell: BridgeCellContext): Promise<unknown> {
    const { handler, toolName, params } = this.selectHandler(call);
    const linked = linkSignals([call.signal, cell.signal]);
    const signal = linked.signal;
    const release = PAUSING_METHODS.has(call.method) ? cell.pauseTimeout() : undefined;
    try {
      const releaseSlot = await this.limiter.acquire(signal).catch(() => {
        throw new Error(`${describeHelper(call.method, toolName)} was cancelled: the cell ended`);
      });
      try {
        const context: BridgeHandlerContext = { signal, method: call.method };
        if (toolName !== undefined) context.toolName = toolName;
        return await handler(params, context);
      } finally {
        releaseSlot();
      }
    } catch (err) {
      throw toHandlerError(err);
    } finally {
      linked.unlink();
      release?.();
    }
  }

  private selectHandler(call: BridgeCall): {
    handler: HostBridgeHandler;
    toolName?: string;
    params: Record<string, unknown>;
  } {
    if (call.method === "agent" || call.method === "completion") {
      const handler = this.handlers[call.method];
      if (!handler) throw new Error(`no host handler registered for ${call.method}()`);
      return { handler, params: call.params };
    }
    if (call.method === "tool") {
      const name = call.params.name;
      if (typeof name !== "string" || name === "") throw new Error("tool call without a tool name");
      const tools = this.handlers.tools ?? {};
      const handler = Object.hasOwn(tools, name) ? tools[name] : undefined;
      if (!handler) {
        const known = Object.keys(tools).sort();
        const list =
          known.length > 0 ? ` (registered tools: ${known.join(", ")})` : " (no tools are registered)";
        throw new Error(`no host handler registered for tool.${name}()${list}`);
      }
      const args = call.params.args;
      const params = isPlainRecord(args) ? args : {};
      return { handler, toolName: name, params };
    }
    throw new Error(`unknown bridge method ${JSON.stringify(call.method)}`);
  }
}

function describeHelper(method: string, toolName: string | undefined): string {
  return toolName === undefined ? `${method}()` : `tool.${toolName}()`;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keeps an Error's name and message (the cell shows both); wraps anything else thrown. */
function toHandlerError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === "string" ? err : `host handler failed: ${describeThrown(err)}`);
}

/** A thrown non-Error as text; a BigInt or a cycle (which JSON.stringify refuses) must not throw again here. */
function describeThrown(err: unknown): string {
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    try {
      return String(err);
    } catch {
      return "a value that cannot be shown";
    }
  }
}
