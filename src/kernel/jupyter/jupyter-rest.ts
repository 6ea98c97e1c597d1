// The Jupyter Server REST API evalkit uses (kernelspecs, kernels: start, get, interrupt, delete), with errors a user can act on.
import { EvalkitError } from "../../errors.js";

/** Where a Jupyter server is and the token it wants (never part of the URL). */
export interface JupyterSettings {
  /** Base URL of the server: `http://127.0.0.1:8888`, `https://hub.example.org/user/ana/`. */
  url: string;
  /** The server's token (sent as `Authorization: token …`); absent for a server without auth. */
  token?: string | undefined;
}

/** One kernelspec as `/api/kernelspecs` lists it. */
export interface KernelspecInfo {
  name: string;
  /** The spec's `language` (as the kernel says it: `python`, `R`, `julia`, `bash`…). */
  language: string;
  displayName: string;
}

/** The server's kernelspecs and its default one. */
export interface KernelspecList {
  defaultName: string | undefined;
  specs: KernelspecInfo[];
}

/** A kernel the server runs. */
export interface ServerKernel {
  id: string;
  name: string;
  executionState: string | undefined;
}

/** Requests that get no answer within this long fail (a server that hangs must not hang evalkit). */
export const JUPYTER_REQUEST_TIMEOUT_MS = 15_000;

/** A thin client of one server's REST API: every failure is an EvalkitError that names the URL. */
export class JupyterRest {
  /** The base URL with exactly one trailing slash. */
  readonly baseUrl: string;
  /** Kernels whose delete failed because the server could not be reached. */
  private readonly undeleted = new Set<string>();

  constructor(
    private readonly settings: JupyterSettings,
    private readonly timeoutMs = JUPYTER_REQUEST_TIMEOUT_MS,
  ) {
    this.baseUrl = settings.url.endsWith("/") ? settings.url : `${settings.url}/`;
  }

  /** Headers every request (and the WebSocket upgrade) carries. */
  get authHeaders(): Record<string, string> {
    return this.settings.token ? { Authorization: `token ${this.settings.token}` } : {};
  }

  async listKernelspecs(): Promise<KernelspecList> {
    const body = (await this.request("GET", "api/kernelspecs")) as {
      default?: string;
      kernelspecs?: Record<string, { name?: string; spec?: { language?: string; display_name?: string } }>;
    };
    const specs: KernelspecInfo[] = [];
    for (const [name, entry] of Object.entries(body.kernelspecs ?? {})) {
      specs.push({
        name: entry.name ?? name,
        language: entry.spec?.language ?? name,
        displayName: entry.spec?.display_name ?? name,
      });
    }
    specs.sort((a, b) => a.name.localeCompare(b.name));
    return { defaultName: body.default, specs };
  }

  async startKernel(name: string): Promise<ServerKernel> {
    const kernel = toServerKernel(await this.request("POST", "api/kernels", { name }));
    // The server is reachable again: delete what could not be deleted while it was not.
    for (const id of this.undeleted) {
      this.undeleted.delete(id);
      this.deleteKernel(id).catch(() => undefined);
    }
    return kernel;
  }

  /** The kernel, or undefined when the server no longer has it (404). */
  async getKernel(id: string): Promise<ServerKernel | undefined> {
    try {
      return toServerKernel(await this.request("GET", `api/kernels/${encodeURIComponent(id)}`));
    } catch (err) {
      if (err instanceof EvalkitError && err.details.status === 404) return undefined;
      throw err;
    }
  }

  async listKernels(): Promise<ServerKernel[]> {
    const body = await this.request("GET", "api/kernels");
    return Array.isArray(body) ? body.map(toServerKernel) : [];
  }

  async interruptKernel(id: string): Promise<void> {
    await this.request("POST", `api/kernels/${encodeURIComponent(id)}/interrupt`);
  }

  /**
   * Deletes the kernel; one the server no longer has counts as deleted. One that cannot be deleted because the
   * server is unreachable is deleted by the next successful kernel start (a network blip must not leak kernels).
   */
  async deleteKernel(id: string): Promise<void> {
    try {
      await this.request("DELETE", `api/kernels/${encodeURIComponent(id)}`);
    } catch (err) {
      if (err instanceof EvalkitError && err.details.status === 404) return;
      if (err instanceof EvalkitError && err.code === "JUPYTER_UNREACHABLE" && this.undeleted.size < 1000)
        this.undeleted.add(id);
      throw err;
    }
  }

  /** One request; JSON in and out. */
  async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const url = this.baseUrl + path;
    const headers: Record<string, string> = { ...this.authHeaders };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw unreachable(this.baseUrl, err, this.timeoutMs);
    }
    const text = await response.text().catch(() => "");
    if (response.status === 401 || response.status === 403) {
      throw new EvalkitError(
        "JUPYTER_REFUSED",
        `the Jupyter server at ${this.baseUrl} refused the request (HTTP ${response.status}): ` +
          (this.settings.token
            ? "the token is wrong or expired; set the server's token in EVALKIT_JUPYTER_TOKEN or --jupyter-token-file"
            : "it wants a token; set it in EVALKIT_JUPYTER_TOKEN or --jupyter-token-file"),
        { url: this.baseUrl, status: response.status },
      );
    }
    if (!response.ok) {
      throw new EvalkitError(
        "JUPYTER_ERROR",
        `the Jupyter server at ${this.baseUrl} answered ${method} /${path} with HTTP ${response.status}` +
          `${describeBody(text)}`,
        { url: this.baseUrl, status: response.status, method, path },
      );
    }
    if (text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new EvalkitError(
        "JUPYTER_ERROR",
        `${this.baseUrl} answered /${path} with something that is not JSON: is it a Jupyter server (check the URL and its base path)?`,
        { url: this.baseUrl, path },
      );
    }
  }
}

function toServerKernel(value: unknown): ServerKernel {
  const kernel = value as { id?: unknown; name?: unknown; execution_state?: unknown };
  if (typeof kernel?.id !== "string")
    throw new EvalkitError("JUPYTER_ERROR", "the Jupyter server answered without a kernel id", {});
  return {
    id: kernel.id,
    name: typeof kernel.name === "string" ? kernel.name : "",
    executionState: typeof kernel.execution_state === "string" ? kernel.execution_state : undefined,
  };
}

function unreachable(baseUrl: string, err: unknown, timeoutMs: number): EvalkitError {
  const cause = err instanceof Error ? ((err.cause as Error | undefined) ?? err) : undefined;
  const isTimeout = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
  const why = isTimeout ? `no answer within ${timeoutMs / 1000}s` : (cause?.message ?? String(err));
  return new EvalkitError(
    "JUPYTER_UNREACHABLE",
    `cannot reach the Jupyter server at ${baseUrl} (${why}): is it running, and is the URL ` +
      "(--jupyter / EVALKIT_JUPYTER_URL) right?",
    { url: baseUrl },
    err,
  );
}

/** The server's own reason, when it gave one (Jupyter answers `{ "message": … }`). */
function describeBody(text: string): string {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return `: ${message.slice(0, 300)}`;
  } catch {
    // not JSON: the status says enough
  }
  return "";
}
