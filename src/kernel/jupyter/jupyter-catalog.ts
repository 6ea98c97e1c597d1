// Which kernelspec serves a cell's language: short names (`py`, `r`), language names and kernelspec names.
import { describeLanguage, toLocalLanguage } from "../../contracts/cell-result.js";
import type { KernelspecInfo, KernelspecList } from "./jupyter-rest.js";

/** A language a cell can name, and the kernelspec that serves it. */
export interface CatalogLanguage {
  /** The key cells and results use: `py` for Python, the lower-cased language otherwise (`r`, `julia`, `bash`). */
  key: string;
  kernelName: string;
  displayName: string;
}

/** What a language resolves to, or why it does not. */
export type CatalogMatch = { ok: true; language: CatalogLanguage } | { ok: false; message: string };

/**
 * The server's languages: one entry per language, served by the server's default kernelspec when it has that
 * language, else by the first kernelspec (by name) that has it; every other kernelspec is reachable by its name.
 */
export class JupyterCatalog {
  /** One per language, in the order the server lists them (the default's language first). */
  readonly languages: CatalogLanguage[] = [];
  private readonly byName = new Map<string, CatalogLanguage>();

  constructor(
    readonly list: KernelspecList,
    private readonly serverUrl: string,
  ) {
    const ordered = [...list.specs].sort((a, b) =>
      a.name === list.defaultName ? -1 : b.name === list.defaultName ? 1 : 0,
    );
    for (const spec of ordered) {
      const key = keyOf(spec);
      if (!this.byName.has(key)) {
        const entry = { key, kernelName: spec.name, displayName: spec.displayName };
        this.languages.push(entry);
        this.byName.set(key, entry);
      }
    }
    for (const spec of ordered) {
      const entry = this.byName.get(keyOf(spec));
      const language = spec.language.toLowerCase();
      if (!this.byName.has(language) && entry) this.byName.set(language, entry);
      if (!this.byName.has(spec.name.toLowerCase())) {
        // A second kernelspec of a language (python3.11 beside python3) is its own kernel, keyed by its name.
        const own =
          entry?.kernelName === spec.name
            ? entry
            : { key: spec.name.toLowerCase(), kernelName: spec.name, displayName: spec.displayName };
        this.byName.set(spec.name.toLowerCase(), own);
      }
    }
  }

  /** The language keys the server offers (`py`, `r`…), for descriptions and errors. */
  get keys(): string[] {
    return this.languages.map((l) => l.key);
  }

  /** The entry for a key or name a cell gave (`py`, `python`, `R`, `ir`), if the server has it. */
  find(language: string): CatalogLanguage | undefined {
    const name = language.trim().toLowerCase();
    return this.byName.get(name) ?? this.byName.get(describeLanguage(name));
  }

  /** Like {@link find}, or a message listing what the server offers. */
  match(language: string): CatalogMatch {
    const found = this.find(language);
    if (found) return { ok: true, language: found };
    return { ok: false, message: this.describeMissing(language) };
  }

  /** The sentence naming what the server offers, for an unknown language. */
  describeMissing(language: string): string {
    const offered = this.languages.map((l) => `"${l.key}" (${l.kernelName}: ${l.displayName})`).join(", ");
    return (
      `the Jupyter server at ${this.serverUrl} has no kernel for language ${JSON.stringify(language)}; ` +
      (offered === "" ? "it offers no kernelspecs at all" : `it offers ${offered}`) +
      ". Use one of these languages, or install the kernel on the server (`jupyter kernelspec list` there)."
    );
  }
}

function keyOf(spec: KernelspecInfo): string {
  const language = spec.language.toLowerCase();
  return toLocalLanguage(language) ?? language;
}
