// `evalkit doctor --jupyter URL`: whether the server answers, takes the token, and which languages it offers.
import { isEvalkitError } from "../errors.js";
import type { JupyterSettings } from "../kernel/jupyter/jupyter-rest.js";

/** What doctor found out about a Jupyter server. */
export interface JupyterReport {
  url: string;
  ok: boolean;
  /** The server's version (`GET /api`), when it answered. */
  version?: string;
  /** The languages cells can name there, with the kernelspec serving each. */
  languages: { language: string; kernelName: string; displayName: string }[];
  /** Kernels the server runs now (anyone's). */
  runningKernels?: number;
  hasToken: boolean;
  /** Why it cannot be used, with what to do. */
  error?: string;
}

/** Asks the server; never throws for a server that is down or refuses (the report says so). */
export async function describeJupyterServer(settings: JupyterSettings): Promise<JupyterReport> {
  // The client is loaded only when a server is asked about.
  const { createJupyterServer } = await import("../kernel/jupyter/jupyter-server.js");
  const server = createJupyterServer(settings);
  const report: JupyterReport = {
    url: server.url,
    ok: false,
    languages: [],
    hasToken: settings.token !== undefined,
  };
  try {
    const about = (await server.rest.request("GET", "api")) as { version?: unknown } | undefined;
    if (typeof about?.version === "string") report.version = about.version;
    const catalog = await server.loadCatalog();
    report.languages = catalog.languages.map((l) => ({
      language: l.key,
      kernelName: l.kernelName,
      displayName: l.displayName,
    }));
    report.runningKernels = (await server.rest.listKernels()).length;
    report.ok = true;
  } catch (err) {
    if (!isEvalkitError(err)) throw err;
    report.error = err.message;
  }
  return report;
}

/** The report as text (the token itself is never shown, only whether one is set). */
export function formatJupyterReport(report: JupyterReport): string {
  const lines = ["Jupyter server (--jupyter, EVALKIT_JUPYTER_URL)", `  url         ${report.url}`];
  lines.push(
    `  token       ${report.hasToken ? "set" : "none (EVALKIT_JUPYTER_TOKEN or --jupyter-token-file)"}`,
  );
  if (!report.ok) {
    lines.push(`  not usable: ${report.error ?? "unknown error"}`);
    return `${lines.join("\n")}\n`;
  }
  if (report.version !== undefined) lines.push(`  version     ${report.version}`);
  lines.push(`  kernels     ${report.runningKernels ?? 0} running`);
  lines.push("  languages   (a cell's `language`, the kernelspec serving it)");
  if (report.languages.length === 0) lines.push("    none: the server has no kernelspecs");
  for (const l of report.languages)
    lines.push(`    ${l.language.padEnd(10)} ${l.kernelName} (${l.displayName})`);
  lines.push("  js          runs locally (not on the server) unless EVALKIT_JS=0");
  return `${lines.join("\n")}\n`;
}
