// The MCP sessions of `evalkit mcp --http`: each its own server, eval tool, kernels, jobs, artifact list, event
// store and directory; created on `initialize`, ended by DELETE, idle expiry or shutdown.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Kernel } from "../kernel/kernel.js";
import { createDefaultKernel } from "../session/default-kernels.js";
import type { KernelFactory } from "../session/session-types.js";
import { BoundedEventStore } from "./event-store.js";
import type { HttpMetrics } from "./http-metrics.js";
import { createEvalMcpServer, type EvalMcpServer } from "./server.js";
import type { EvalMcpServerOptions } from "./server-options.js";

/** Longest wait for the answers of calls cancelled because their session ends. */
const ANSWER_GRACE_MS = 2000;

/** How the registry makes and limits sessions. */
export interface HttpSessionConfig {
  /** Sessions work in `<root>/sessions/<id>`. */
  root: string;
  /** Options every session's server gets (`cwd` is the session's directory). */
  serverOptions: Omit<EvalMcpServerOptions, "cwd">;
  maxSessions: number;
  /** A session with no request for this long ends (0: never). */
  sessionTtlMs: number;
  eventBudgetBytes: number;
  /** Largest POST body the transport reads. */
  maxRequestBytes: number;
  metrics: HttpMetrics;
  log: (line: string) => void;
}

/** One MCP session. */
export interface HttpSession {
  readonly id: string;
  readonly dir: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly mcp: EvalMcpServer;
  readonly events: BoundedEventStore;
  /** POST requests being answered now; a session with one is never idle. */
  inFlight: number;
  /** `eval` calls running now, also one whose client lost its stream and will resume it: not idle either. */
  calls: number;
  lastActiveAt: number;
}

/** Every open session, the limit on their number and their idle expiry. */
export class HttpSessionRegistry {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly ending = new Map<string, Promise<void>>();
  private creating = 0;
  private hasClosed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly config: HttpSessionConfig) {
    const every = config.sessionTtlMs > 0 ? Math.max(50, Math.min(config.sessionTtlMs / 4, 30_000)) : 30_000;
    this.sweeper = setInterval(() => this.sweep(Date.now()), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  /** True once `endAll` ran: no new session is made. */
  get isClosed(): boolean {
    return this.hasClosed;
  }

  get isFull(): boolean {
    return this.sessions.size + this.creating >= this.config.maxSessions;
  }

  /**
   * Makes a session for an `initialize` request (the transport then answers it with the session id). Returns
   * undefined when `maxSessions` are open. Throws EvalkitError for options a session cannot use.
   */
  async create(id: string): Promise<HttpSession | undefined> {
    if (this.isFull || this.hasClosed) return undefined;
    this.creating += 1;
    try {
      return await this.build(id);
    } finally {
      this.creating -= 1;
    }
  }

  /** Notes a request on the session: it is busy until `done` is called. */
  track(session: HttpSession, isCall: boolean): () => void {
    session.lastActiveAt = Date.now();
    if (isCall) session.inFlight += 1;
    let isDone = false;
    return () => {
      if (isDone) return;
      isDone = true;
      if (isCall) session.inFlight -= 1;
      session.lastActiveAt = Date.now();
    };
  }

  /** Ends a session: cancels its calls and jobs, shuts its kernels down, drops its stored events. */
  end(id: string, reason: string): Promise<void> {
    const pending = this.ending.get(id);
    if (pending !== undefined) return pending;
    const session = this.sessions.get(id);
    if (session === undefined) return Promise.resolve();
    this.sessions.delete(id);
    this.config.metrics.sessions = this.sessions.size;
    session.events.clear();
    const done = this.answerRunningCalls(session)
      .then(() => session.mcp.close())
      .catch(() => undefined)
      .then(() => {
        this.ending.delete(id);
        this.config.log(`session ${id} ended (${reason}); ${this.sessions.size} open`);
      });
    this.ending.set(id, done);
    return done;
  }

  /**
   * Calls still running when their session ends (shutdown, a DELETE mid-call) are cancelled first, so their
   * clients get an answer (cells `cancelled`) over the open stream instead of waiting for a connection that
   * will not come back; then the session closes. Bounded: at most ANSWER_GRACE_MS.
   */
  private async answerRunningCalls(session: HttpSession): Promise<void> {
    if (session.calls === 0) return;
    const tool = await session.mcp.getTool();
    await tool.dispose();
    const deadline = Date.now() + ANSWER_GRACE_MS;
    while (session.inFlight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Ends every session (shutdown); resolves when their kernels are gone. */
  async endAll(reason: string): Promise<void> {
    this.hasClosed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id, reason)));
    await Promise.all([...this.ending.values()]);
  }

  /**
   * Prunes every session's stored events, and ends the sessions idle (no call running, no request but the
   * standalone GET stream) for longer than the TTL. A job left running by `yieldAfter` does not keep its
   * session: it ends with it.
   */
  sweep(now: number): void {
    for (const session of this.sessions.values()) {
      session.events.prune();
      if (this.config.sessionTtlMs === 0) continue;
      if (
        session.inFlight === 0 &&
        session.calls === 0 &&
        now - session.lastActiveAt > this.config.sessionTtlMs
      ) {
        void this.end(session.id, "idle");
      }
    }
  }

  private async build(id: string): Promise<HttpSession> {
    const { config } = this;
    const dir = path.join(config.root, "sessions", id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const serverOptions = config.serverOptions;
    const mcp = createEvalMcpServer(
      {
        ...serverOptions,
        cwd: dir,
        tool: { ...(serverOptions.tool ?? {}), createKernel: this.countKernels() },
      },
      undefined,
      {
        onCallStart: () => {
          session.calls += 1;
          config.metrics.callsInFlight += 1;
        },
        onCallEnd: (result) => {
          session.calls -= 1;
          session.lastActiveAt = Date.now();
          this.noteCall(result);
        },
        isOwnArtifactsOnly: true,
      },
    );
    const events = new BoundedEventStore(config.eventBudgetBytes);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: events,
      maxRequestBodySize: config.maxRequestBytes,
      onsessionclosed: (closedId) => this.end(closedId, "DELETE"),
    });
    const session: HttpSession = {
      id,
      dir,
      transport,
      mcp,
      events,
      inFlight: 0,
      calls: 0,
      lastActiveAt: Date.now(),
    };
    // A transport closed from inside (the SDK giving up on it) ends the session too.
    transport.onclose = () => {
      void this.end(id, "closed");
    };
    await mcp.connect(transport);
    this.sessions.set(id, session);
    if (this.hasClosed) void this.end(id, "server shutting down");
    config.metrics.sessions = this.sessions.size;
    config.metrics.sessionsCreated += 1;
    config.log(`session ${id} started in ${dir}; ${this.sessions.size} open`);
    return session;
  }

  /** The default kernels, counted live (started, not yet exited) and dead (exited unasked) in the metrics. */
  private countKernels(): KernelFactory {
    const metrics = this.config.metrics;
    return (spec) => {
      const kernel: Kernel = createDefaultKernel(spec);
      const start = kernel.start.bind(kernel);
      kernel.start = async () => {
        await start();
        metrics.kernels += 1;
        kernel.onExit((exit) => {
          metrics.kernels -= 1;
          if (!exit.requested) metrics.kernelDeaths += 1;
        });
      };
      return kernel;
    };
  }

  private noteCall(result: CallToolResult | undefined): void {
    const metrics = this.config.metrics;
    metrics.callsInFlight -= 1;
    if (result === undefined || result.isError === true) metrics.calls.error += 1;
    else metrics.calls.ok += 1;
    const details = result?.structuredContent as
      | { cells?: { status?: string; durationMs?: number }[]; job?: { state?: string } }
      | undefined;
    if (details?.job?.state === "running") return;
    for (const cell of details?.cells ?? []) {
      if (typeof cell.durationMs === "number" && cell.status !== "skipped" && cell.status !== "running") {
        metrics.observeCell(cell.durationMs);
      }
    }
  }
}
