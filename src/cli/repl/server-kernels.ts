// The REPL's kernels on a Jupyter server (`evalkit repl --jupyter URL`): Python and any other server language.
import { EvalkitError } from "../../errors.js";
import type { JupyterKernel } from "../../kernel/jupyter/jupyter-kernel.js";
import type { JupyterSettings } from "../../kernel/jupyter/jupyter-rest.js";
import type { JupyterServer } from "../../kernel/jupyter/jupyter-server.js";
import { DEFAULT_INTERRUPT_GRACE_MS } from "../../session/session-manager.js";

/** One kernel per language on the server, started on first use and deleted at shutdown. */
export class ReplServerKernels {
  private server: Promise<JupyterServer> | undefined;
  private readonly kernels = new Map<string, JupyterKernel>();

  constructor(private readonly settings: JupyterSettings) {}

  /** The server's URL, for the banner. */
  get url(): string {
    return this.settings.url;
  }

  /** The language key a name resolves to on the server (`R` → `r`), or an error listing what it offers. */
  async resolveLanguage(name: string): Promise<string> {
    const catalog = await (await this.connect()).loadCatalog(true);
    const match = catalog.match(name);
    if (!match.ok) throw new EvalkitError("INVALID_INPUT", match.message, { field: "language" });
    return match.language.key;
  }

  /** The running kernel of `language`, if there is one. */
  peek(language: string): JupyterKernel | undefined {
    const kernel = this.kernels.get(language);
    return kernel?.isAlive ? kernel : undefined;
  }

  /** The kernel of `language`, started when there is none (or the last one ended). */
  async get(language: string): Promise<JupyterKernel> {
    const running = this.peek(language);
    if (running) return running;
    const server = await this.connect();
    const kernelName = await server.kernelNameFor(language);
    if (kernelName === undefined) {
      const catalog = await server.loadCatalog();
      throw new EvalkitError("INVALID_INPUT", catalog.describeMissing(language), { field: "language" });
    }
    const kernel = server.createKernel(kernelName, language, DEFAULT_INTERRUPT_GRACE_MS);
    this.kernels.set(language, kernel);
    try {
      await kernel.start();
    } catch (err) {
      this.kernels.delete(language);
      await kernel.shutdown();
      throw err;
    }
    return kernel;
  }

  /** Deletes the language's kernel and starts a fresh one. */
  async restart(language: string): Promise<JupyterKernel> {
    await this.kernels.get(language)?.shutdown();
    this.kernels.delete(language);
    return this.get(language);
  }

  /** Deletes every kernel this REPL started on the server. */
  async shutdown(): Promise<void> {
    const all = [...this.kernels.values()];
    this.kernels.clear();
    await Promise.allSettled(all.map((kernel) => kernel.shutdown()));
  }

  private connect(): Promise<JupyterServer> {
    // The client loads only when a server is configured.
    this.server ??= import("../../kernel/jupyter/jupyter-server.js").then((m) =>
      m.createJupyterServer(this.settings),
    );
    return this.server;
  }
}
