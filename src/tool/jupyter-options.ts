// The Jupyter server a tool runs cells on: the `jupyter` option or EVALKIT_JUPYTER_URL / EVALKIT_JUPYTER_TOKEN, checked.
import { EvalkitError } from "../errors.js";
import type { JupyterSettings } from "../kernel/jupyter/jupyter-rest.js";

/** The `jupyter` option of the eval tool. */
export interface JupyterOption {
  /** Base URL of a Jupyter Server, JupyterHub user server, Kernel Gateway or Enterprise Gateway. */
  url: string;
  /** Its token; default EVALKIT_JUPYTER_TOKEN. Never put it in the URL. */
  token?: string;
}

/**
 * The server to use: the option, else EVALKIT_JUPYTER_URL (with EVALKIT_JUPYTER_TOKEN); undefined when neither is
 * set. A URL that is not http(s) or that carries a token in its query is INVALID_INPUT naming the field.
 */
export function resolveJupyterOption(
  option: JupyterOption | undefined,
  env: Record<string, string | undefined>,
): JupyterSettings | undefined {
  const field = option !== undefined ? "jupyter.url" : "EVALKIT_JUPYTER_URL";
  const url = option?.url ?? nonEmpty(env.EVALKIT_JUPYTER_URL);
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EvalkitError("INVALID_INPUT", `${field}: ${JSON.stringify(url)} is not a URL`, { field });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new EvalkitError(
      "INVALID_INPUT",
      `${field}: expected an http:// or https:// URL of a Jupyter server, got ${parsed.protocol}//…`,
      { field },
    );
  }
  if (parsed.searchParams.has("token") || parsed.username !== "" || parsed.password !== "") {
    // A URL is printed in messages, logs and `ps`: a token in it would leak. The token travels apart.
    throw new EvalkitError(
      "INVALID_INPUT",
      `${field}: the URL carries credentials; give the token through EVALKIT_JUPYTER_TOKEN, --jupyter-token-file ` +
        "or the option jupyter.token, and the URL without it",
      { field },
    );
  }
  parsed.search = "";
  parsed.hash = "";
  const token = option?.token ?? nonEmpty(env.EVALKIT_JUPYTER_TOKEN);
  return token === undefined ? { url: parsed.href } : { url: parsed.href, token };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
