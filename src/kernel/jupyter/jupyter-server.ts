// One configured Jupyter server: its kernelspec catalog (fetched once, refreshed on a miss) and its kernels' factory.
import { JupyterCatalog } from "./jupyter-catalog.js";
import { JupyterKernel } from "./jupyter-kernel.js";
import { JupyterRest, type JupyterSettings } from "./jupyter-rest.js";

/** A language the catalog does not know is looked up again after this long (a kernel may have been installed). */
const CATALOG_REFRESH_MS = 10_000;

/** The server a session manager runs its kernels on. */
export class JupyterServer {
  readonly rest: JupyterRest;
  private catalog: { at: number; value: Promise<JupyterCatalog>; settled?: JupyterCatalog } | undefined;

  constructor(settings: JupyterSettings) {
    this.rest = new JupyterRest(settings);
  }

  /** The server's URL as messages show it (never with a token). */
  get url(): string {
    return this.rest.baseUrl;
  }

  /** The catalog when it was fetched already (descriptions read it synchronously). */
  get knownCatalog(): JupyterCatalog | undefined {
    return this.catalog?.settled;
  }

  /** The kernelspec catalog; fetched on first use, and again when `refresh` and the last fetch is old. */
  loadCatalog(refresh = false): Promise<JupyterCatalog> {
    const cached = this.catalog;
    if (cached && !(refresh && Date.now() - cached.at >= CATALOG_REFRESH_MS)) return cached.value;
    const entry: { at: number; value: Promise<JupyterCatalog>; settled?: JupyterCatalog } = {
      at: Date.now(),
      value: this.rest.listKernelspecs().then((list) => new JupyterCatalog(list, this.rest.baseUrl)),
    };
    this.catalog = entry;
    entry.value.then(
      (catalog) => {
        entry.settled = catalog;
      },
      () => {
        // A failed fetch (server down, wrong token) is tried again by the next call.
        if (this.catalog === entry) this.catalog = undefined;
      },
    );
    return entry.value;
  }

  /** The kernelspec name for a language key a cell resolved to, refreshing the catalog once on a miss. */
  async kernelNameFor(language: string): Promise<string | undefined> {
    const found = (await this.loadCatalog()).find(language);
    if (found) return found.kernelName;
    return (await this.loadCatalog(true)).find(language)?.kernelName;
  }

  /** A (not yet started) kernel of `kernelName`, known to cells as `language`. */
  createKernel(kernelName: string, language: string, interruptGraceMs?: number): JupyterKernel {
    return new JupyterKernel({
      rest: this.rest,
      kernelName,
      language,
      ...(interruptGraceMs !== undefined ? { interruptGraceMs } : {}),
    });
  }
}

/** Builds the server client; the entry point other layers import lazily (`await import(...)`). */
export function createJupyterServer(settings: JupyterSettings): JupyterServer {
  return new JupyterServer(settings);
}
