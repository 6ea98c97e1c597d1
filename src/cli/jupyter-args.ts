// The Jupyter flags shared by `exec`, `repl`, `mcp` and `doctor`: --jupyter URL and --jupyter-token-file FILE.
import { readFileSync } from "node:fs";
import type { JupyterOption } from "../tool/jupyter-options.js";
import { UsageError } from "./args.js";

/** parseArgs entries; spread into each command's options. */
export const JUPYTER_OPTIONS = {
  jupyter: { type: "string" },
  "jupyter-token-file": { type: "string" },
} as const;

/** Usage lines with descriptions starting at `column`. */
export function jupyterUsage(column: number): string {
  const lines: [string, string][] = [
    [
      "--jupyter URL",
      "run cells on this Jupyter server's kernels (also EVALKIT_JUPYTER_URL; docs/jupyter.md)",
    ],
    ["--jupyter-token-file F", "read the server's token from file F (or set EVALKIT_JUPYTER_TOKEN)"],
  ];
  return lines.map(([flag, text]) => `${`  ${flag}`.padEnd(column - 1)} ${text}\n`).join("");
}

type JupyterValues = { jupyter?: string | undefined; "jupyter-token-file"?: string | undefined };

/**
 * The `jupyter` option the flags ask for: undefined when --jupyter is absent (EVALKIT_JUPYTER_URL then decides
 * inside the tool). The token is read from the file, else EVALKIT_JUPYTER_TOKEN; a token is never a flag's value,
 * where `ps` would show it.
 */
export function readJupyterArgs(
  values: JupyterValues,
  env: Record<string, string | undefined> = process.env,
): JupyterOption | undefined {
  const file = values["jupyter-token-file"];
  const token = file !== undefined ? readTokenFile(file) : undefined;
  const url = values.jupyter ?? (token !== undefined ? env.EVALKIT_JUPYTER_URL : undefined);
  if (url === undefined || url.trim() === "") {
    if (file !== undefined)
      throw new UsageError("--jupyter-token-file needs --jupyter URL (or EVALKIT_JUPYTER_URL)");
    return undefined;
  }
  const envToken = env.EVALKIT_JUPYTER_TOKEN?.trim();
  const chosen = token ?? (envToken ? envToken : undefined);
  return chosen === undefined ? { url: url.trim() } : { url: url.trim(), token: chosen };
}

function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`--jupyter-token-file: cannot read ${JSON.stringify(file)} (${why})`);
  }
  const token = text.trim();
  if (token === "") throw new UsageError(`--jupyter-token-file: ${JSON.stringify(file)} is empty`);
  return token;
}
