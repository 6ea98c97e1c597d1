// What `/metrics` reports about `evalkit mcp --http`, in the Prometheus text format (no client library needed).

/** Why a request was refused (a label of `evalkit_mcp_refused_requests_total`). */
export type RefusalReason =
  | "unauthorized"
  | "forbidden_host"
  | "forbidden_origin"
  | "server_full"
  | "unknown_session";

/** Upper bounds (seconds) of the cell duration histogram's buckets. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Counters and gauges of one HTTP server; the session registry and the sessions' servers feed it. */
export class HttpMetrics {
  sessions = 0;
  sessionsCreated = 0;
  kernels = 0;
  kernelDeaths = 0;
  callsInFlight = 0;
  readonly calls = { ok: 0, error: 0 };
  readonly refused: Record<RefusalReason, number> = {
    unauthorized: 0,
    forbidden_host: 0,
    forbidden_origin: 0,
    server_full: 0,
    unknown_session: 0,
  };
  private readonly durationCounts = DURATION_BUCKETS.map(() => 0);
  private durationCount = 0;
  private durationSum = 0;

  /** One finished cell's duration. */
  observeCell(durationMs: number): void {
    const seconds = durationMs / 1000;
    this.durationCount += 1;
    this.durationSum += seconds;
    DURATION_BUCKETS.forEach((bound, index) => {
      if (seconds <= bound) this.durationCounts[index] = (this.durationCounts[index] ?? 0) + 1;
    });
  }

  refuse(reason: RefusalReason): void {
    this.refused[reason] += 1;
  }

  /** The exposition text (version 0.0.4). */
  render(): string {
    const lines: string[] = [];
    const metric = (name: string, type: string, help: string, values: string[]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...values);
    };
    metric("evalkit_mcp_sessions", "gauge", "MCP sessions open now.", [
      `evalkit_mcp_sessions ${this.sessions}`,
    ]);
    metric("evalkit_mcp_sessions_created_total", "counter", "MCP sessions created since start.", [
      `evalkit_mcp_sessions_created_total ${this.sessionsCreated}`,
    ]);
    metric("evalkit_mcp_kernels", "gauge", "Kernel processes alive now, over every session.", [
      `evalkit_mcp_kernels ${this.kernels}`,
    ]);
    metric("evalkit_mcp_kernel_deaths_total", "counter", "Kernels that ended without being asked to.", [
      `evalkit_mcp_kernel_deaths_total ${this.kernelDeaths}`,
    ]);
    metric("evalkit_mcp_calls_in_flight", "gauge", "eval tool calls running now.", [
      `evalkit_mcp_calls_in_flight ${this.callsInFlight}`,
    ]);
    metric(
      "evalkit_mcp_calls_total",
      "counter",
      "eval tool calls answered, by outcome (error: isError or a failure).",
      [
        `evalkit_mcp_calls_total{outcome="ok"} ${this.calls.ok}`,
        `evalkit_mcp_calls_total{outcome="error"} ${this.calls.error}`,
      ],
    );
    const buckets = DURATION_BUCKETS.map(
      (bound, index) =>
        `evalkit_mcp_cell_duration_seconds_bucket{le="${bound}"} ${this.durationCounts[index] ?? 0}`,
    );
    metric("evalkit_mcp_cell_duration_seconds", "histogram", "Durations of finished cells.", [
      ...buckets,
      `evalkit_mcp_cell_duration_seconds_bucket{le="+Inf"} ${this.durationCount}`,
      `evalkit_mcp_cell_duration_seconds_sum ${this.durationSum}`,
      `evalkit_mcp_cell_duration_seconds_count ${this.durationCount}`,
    ]);
    metric(
      "evalkit_mcp_refused_requests_total",
      "counter",
      "Requests refused, by reason.",
      Object.entries(this.refused).map(
        ([reason, count]) => `evalkit_mcp_refused_requests_total{reason="${reason}"} ${count}`,
      ),
    );
    return `${lines.join("\n")}\n`;
  }
}
