// The model-facing description of the eval tool: what cells are, state, timeouts, magics, helpers, artifacts.
import type { CellLanguage } from "../contracts/cell-result.js";
import type { KernelMode } from "../session/session-types.js";

export interface DescriptionOptions {
  /** Languages advertised (enabled and, for Python, not known to be broken). */
  languages: readonly CellLanguage[];
  mode: KernelMode;
  defaultTimeout: number;
  maxTimeout: number;
  /** Set when cells run on a Jupyter server: its languages (when known) with their kernels' display names. */
  jupyter?: { languages: { language: string; displayName: string }[] };
  /** Protocol runtimes among the languages (docs/runtimes.md), each with its own line. */
  runtimes?: readonly { name: string; summary: string | undefined }[];
}

/** A few short paragraphs telling a model how to use the tool; only enabled backends are mentioned. */
export function buildEvalDescription(options: DescriptionOptions): string {
  if (options.jupyter) return buildJupyterDescription(options, options.jupyter.languages);
  // The backends differ in what a model should know (Python: magics and its helpers; JS: Node and its globals).
  const hasPy = options.languages.includes("py");
  const hasJs = options.languages.includes("js");
  const paragraphs: string[] = [];

  const runtimes =
    hasPy && hasJs
      ? 'Python ("py", the default) or JavaScript ("js", Node.js)'
      : hasPy
        ? 'Python ("py")'
        : 'JavaScript ("js", Node.js)';
  paragraphs.push(
    `Runs code cells in ${runtimes} and returns everything they printed or displayed. Pass ` +
      "`cells: [{ code, language?, title?, timeout?, reset? }]`; cells run in order, and the first cell that " +
      "fails (error, timeout, cancel) stops the call: later cells are reported as skipped. The value of a " +
      "cell's last expression is shown, like in a notebook.",
  );

  const state =
    options.mode === "session"
      ? "State persists: variables, imports and files from earlier cells and earlier calls stay available " +
        `(one interpreter per language). \`reset: true\` on a cell starts that language's interpreter fresh.`
      : "Each call starts fresh interpreters (one per language); state is shared by the cells of one call only.";
  paragraphs.push(
    `${state} Each cell may run ${options.defaultTimeout}s by default; set \`timeout\` (seconds, up to ` +
      `${options.maxTimeout}) for longer work. A timed-out cell is interrupted and its interpreter kept.`,
  );
  paragraphs.push(describeJobs());

  if (hasPy) {
    paragraphs.push(
      "Python cells accept IPython-style magics: `%pip install pkg`, `!ls -la` (or `files = !ls`), `%cd`, " +
        "`%env`, `%time`, `%%bash` / `%%sh` cell bodies, `%%writefile path`, `%%capture`, `%run script.py`. " +
        "Helpers are predefined: `display(obj)` (rich output: DataFrames, images, HTML, matplotlib figures show " +
        "automatically), `env()`, `read(path)`, `write(path, text)`, `output(id)`, `log(msg)`, `phase(title)`, " +
        "`parallel(thunks)`, `pipeline(items, *stages)`, and `tool.<name>(**args)`, `completion(prompt)`, " +
        "`agent(prompt)`, which call the host program (available when it provides them). `input()` is not available.",
    );
  }
  if (hasJs) {
    paragraphs.push(
      "JavaScript cells run in a Node.js context with top-level `await`, `require` and `import()`; " +
        "`console.log` and `display(value)` produce output. Helpers: `env()`, `read(path)`, `write(path, text)`, " +
        "`log(msg)`, `phase(title)`, and the host calls `await tool.<name>(args)`, `await completion(prompt)`, " +
        "`await agent(prompt)`, `await parallel(thunks)`.",
    );
  }

  for (const runtime of options.runtimes ?? []) {
    if (!options.languages.includes(runtime.name)) continue;
    paragraphs.push(
      `"${runtime.name}" cells run in a ${runtime.name} kernel${runtime.summary ? `: ${runtime.summary}` : "."}`,
    );
  }

  const reader = hasPy
    ? ' Read it with `output("<id>")` in a Python cell (offset/limit page through it).'
    : "";
  paragraphs.push(
    "Long output is shortened to its head and tail with a notice like " +
      "`… N lines / N bytes omitted; full output: artifact://<id>`; nothing is lost." +
      reader +
      " Prefer printing summaries over dumping huge data.",
  );
  return paragraphs.join("\n\n");
}

function describeJobs(): string {
  return (
    "Work that outlives one call (training, downloads, servers): add `yieldAfter: <seconds>` and the call " +
    "returns then with the output so far and a job handle (`[job <id> running]`) while the cells keep running " +
    'under their timeout. Then `{ "job": "<id>", "wait": <seconds> }` returns the new output (waiting up to that ' +
    'long for the end) and `{ "job": "<id>", "cancel": true }` interrupts it. Other calls wait until the job ends.'
  );
}

/** Cells on a Jupyter server: its languages, the kernels' own features, no evalkit helpers. */
function buildJupyterDescription(
  options: DescriptionOptions,
  languages: { language: string; displayName: string }[],
): string {
  const named = languages.map((l) => `"${l.language}" (${l.displayName})`);
  // JS stays local beside a server, so it is named even when the server has no JS kernelspec.
  if (options.languages.includes("js") && !languages.some((l) => l.language === "js"))
    named.push('"js" (JavaScript, Node.js, run locally)');
  const offered = named.length > 0 ? named.join(", ") : '"py" and the other languages of the server';
  const state =
    options.mode === "session"
      ? "State persists across cells and calls (one kernel per language); `reset: true` on a cell restarts " +
        "that language's kernel."
      : "Each call starts fresh kernels (one per language).";
  return [
    `Runs code cells on Jupyter kernels and returns everything they printed or displayed. Languages: ${offered}; ` +
      'set `language` on each cell (default "py"). Pass `cells: [{ code, language?, title?, timeout?, reset? }]`; ' +
      "cells run in order and the first cell that fails (error, timeout, cancel) stops the call: later cells " +
      "are reported as skipped. The value of a cell's last expression is shown, like in a notebook.",
    `${state} Each cell may run ${options.defaultTimeout}s by default; set \`timeout\` (seconds, up to ` +
      `${options.maxTimeout}) for longer work. A timed-out cell is interrupted and its kernel kept.`,
    describeJobs(),
    "Each kernel offers its own features (IPython magics such as `%pip` and `!cmd` in Python, plots shown as " +
      "images); `input()` is not available. Long output is shortened to its head and tail with a notice like " +
      "`… N lines / N bytes omitted; full output: artifact://<id>`. Prefer printing summaries over dumping huge data.",
  ].join("\n\n");
}
