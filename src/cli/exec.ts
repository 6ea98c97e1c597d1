// `evalkit exec`: run -c/FILE/notebook cells (or the eval tool's JSON input) in fresh kernels and print what they did.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { type EvalDetails, toLocalLanguage } from "../contracts/cell-result.js";
import { isEvalkitError } from "../errors.js";
import { findRuntime, type RuntimeSpec } from "../kernel/runtimes/define-runtime.js";
import { resolveEvalkitHome } from "../runtime/evalkit-home.js";
import { createEvalTool, type EvalTool } from "../tool/eval-tool.js";
import { type EvalInput, safeParseEvalInput } from "../tool/input-schema.js";
import { type CommandIo, formatUsageError, parseCommandArgs, readNumberOption, UsageError } from "./args.js";
import { ExecTextOutput } from "./exec-text-output.js";
import { checkFileSize, readFileLimited, readStreamLimited } from "./input-limits.js";
import { JUPYTER_OPTIONS, jupyterUsage, readJupyterArgs } from "./jupyter-args.js";
import { type Notebook, readNotebook } from "./notebook-cells.js";
import { buildExecutedNotebook, writeFileAtomically } from "./notebook-output.js";
import { ImageOutput } from "./repl/images.js";
import { RUNTIME_OPTIONS, readRuntimeArgs, runtimeUsage } from "./runtime-args.js";
import { readSandboxArgs, SANDBOX_OPTIONS, SANDBOX_USAGE } from "./sandbox-args.js";
import { decodeSourceFile } from "./source-decoding.js";

export const EXEC_USAGE = `usage: evalkit exec [options] [-c CODE | FILE]...
       evalkit exec [options] NOTEBOOK.ipynb [--output-notebook OUT.ipynb] [--allow-errors]

Runs cells in order in one fresh kernel per language (state is shared by the cells of this run only);
the first cell that does not end ok stops the run (with --allow-errors, only a timeout, an interrupt or a
lost kernel does).

  -c, --code CODE      a cell's source (repeatable; mixes with FILE cells in command-line order)
  FILE                 a file whose content is one cell (.py: Python, .js/.mjs/.cjs: JavaScript; - reads stdin)
  NOTEBOOK.ipynb       a Jupyter notebook: its code cells in order, titled "NAME.ipynb [n]" (n-th code cell);
                       the language comes from the notebook's kernelspec (Python or JavaScript; with --jupyter any)
  --output-notebook PATH
                       write a copy of the one .ipynb input with this run's outputs and execution counts
  --allow-errors       run every cell even after one raises, keeping each error in its cell's outputs, as
                       nbconvert does with its allow-errors flag; the exit status is then 0 unless a
                       cell timed out, was interrupted or lost its kernel
  --input FILE|-       the eval tool's JSON input ({"cells": [...]}) instead of -c/FILE
  --lang LANG          language of -c cells and of files without a known extension (default py): py or js,
                       with --jupyter any language of the server (r, julia, bash...)
  --timeout SECONDS    per-cell timeout (default 30; clamped to 1..3600)
  --cwd DIR            working directory of the kernels (default: the current directory)
  --python PATH        Python interpreter (default: EVALKIT_PYTHON, venvs, managed venv, PATH)
  --launcher PREFIX    run the interpreter through a command prefix, e.g. "docker exec -i box"
${runtimeUsage(23)}${SANDBOX_USAGE}${jupyterUsage(23)}  --json               print the result's details as one JSON object at the end (text mode streams instead)
  --images DIR         where text mode saves images, one line per image naming its file
                       (default $EVALKIT_HOME/images, EVALKIT_HOME defaulting to ~/.evalkit)
  -h, --help           this help

exit status: 0 every cell ok, 1 some cell not ok (or no usable interpreter), 2 bad usage or invalid input
`;

const OPTIONS = {
  code: { type: "string", short: "c", multiple: true },
  input: { type: "string" },
  lang: { type: "string" },
  timeout: { type: "string" },
  cwd: { type: "string" },
  python: { type: "string" },
  launcher: { type: "string" },
  ...RUNTIME_OPTIONS,
  ...SANDBOX_OPTIONS,
  ...JUPYTER_OPTIONS,
  json: { type: "boolean" },
  images: { type: "string" },
  "output-notebook": { type: "string" },
  "allow-errors": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const EXTENSIONS: Record<string, "py" | "js"> = { ".py": "py", ".js": "js", ".mjs": "js", ".cjs": "js" };
/** Files of languages only a Jupyter server runs. */
const SERVER_EXTENSIONS: Record<string, string> = { ".r": "r", ".jl": "julia", ".sh": "bash" };

type RawCell = { language?: string; code: string; title?: string };

/** A notebook given as FILE, and where each of its code cells landed in the run. */
type NotebookInput = { notebook: Notebook; slots: { cellIndex: number; evalIndex: number }[] };

/** Runs `evalkit exec` with `argv` (after the subcommand); resolves to the exit status. */
export async function runExec(argv: string[], io: CommandIo): Promise<number> {
  let tool: EvalTool | undefined;
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error("interrupted"));
  try {
    const { values, tokens } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      io.stdout(EXEC_USAGE);
      return 0;
    }
    const jupyter = readJupyterArgs(values);
    const hasServer = jupyter !== undefined || (process.env.EVALKIT_JUPYTER_URL ?? "").trim() !== "";
    const runtimes = readRuntimeArgs(values);
    const { input: rawInput, notebooks } = await buildRawInput(values, tokens ?? [], io, hasServer, runtimes);
    const outputNotebook = checkOutputNotebook(values["output-notebook"], notebooks);
    const imagesDir = checkImagesDir(values.images);
    if (isNotebookWithoutCode(rawInput, notebooks)) {
      // Like nbconvert: a notebook with nothing to run is not an error, and its "executed" copy is itself.
      io.stderr(`evalkit exec: ${notebooks.map((n) => n.notebook.file).join(", ")}: no code cell to run\n`);
      if (outputNotebook !== undefined) {
        writeFileAtomically(outputNotebook.path, buildExecutedNotebook(outputNotebook.from.notebook, []));
      }
      return 0;
    }
    tool = createEvalTool({
      mode: "per-call",
      ...(values.python !== undefined ? { python: values.python } : {}),
      ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
      ...(values.launcher !== undefined ? { launcher: values.launcher } : {}),
      ...(runtimes.length > 0 ? { runtimes } : {}),
      ...readSandboxArgs(values),
      ...(jupyter !== undefined ? { jupyter } : {}),
    });
    const parsed = safeParseEvalInput(tool.zodSchema, rawInput);
    if (!parsed.ok) {
      io.stderr(`evalkit exec: invalid input: ${parsed.error.problems.join("; ")}\n`);
      return 2;
    }
    if (parsed.value.yieldAfter !== undefined) {
      // exec is one-shot: its process (and the kernels) end with the call, so there is nothing to come back to.
      io.stderr("evalkit exec: note: yieldAfter is ignored (exec runs every cell to its end)\n");
      delete parsed.value.yieldAfter;
    }
    const missing = hasServer
      ? await describeMissingServer(tool)
      : await describeMissingPython(tool, parsed.value);
    if (missing !== undefined) {
      io.stderr(`evalkit exec: ${missing}\n`);
      return 1;
    }

    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    const printer = values.json
      ? undefined
      : new ExecTextOutput(
          (text) => io.stdout(text),
          parsed.value.cells.map((cell) => ({
            language: cell.language ?? "py",
            ...(cell.title !== undefined ? { title: cell.title } : {}),
          })),
          new ImageOutput({ protocol: undefined, dir: imagesDir, isManagedDir: values.images === undefined }),
        );
    const allowErrors = values["allow-errors"] === true;
    // Parsed above with the tool's own schema: the tool does not parse it again.
    const result = await tool.executeParsed(parsed.value, {
      signal: controller.signal,
      ...(allowErrors ? { continueOnError: true } : {}),
      ...(printer
        ? { onUpdate: (progress) => printer.update(progress), onOutput: (event) => printer.output(event) }
        : {}),
    });
    if (printer) printer.finish(result.details.cells);
    else io.stdout(`${JSON.stringify(result.details satisfies EvalDetails)}\n`);
    if (outputNotebook !== undefined) {
      const { notebook, slots } = outputNotebook.from;
      const executed = slots.flatMap(({ cellIndex, evalIndex }) => {
        const cellResult = result.details.cells[evalIndex];
        return cellResult ? [{ cellIndex, result: cellResult }] : [];
      });
      writeFileAtomically(outputNotebook.path, buildExecutedNotebook(notebook, executed));
    }
    return isRunOk(result.details, allowErrors) ? 0 : 1;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(formatUsageError("exec", err.message));
      return 2;
    }
    if (isEvalkitError(err)) {
      io.stderr(`evalkit exec: ${err.message}\n`);
      return err.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw err;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    await tool?.dispose();
  }
}

/**
 * Every cell ok; with --allow-errors, cells that raised count as run (nbconvert exits 0 for them too), but not a
 * failure of the host's own (no interpreter, a kernel that would not start), which carries no traceback.
 */
function isRunOk(details: EvalDetails, allowErrors: boolean): boolean {
  if (details.ok) return true;
  return (
    allowErrors &&
    details.cells.every(
      (cell) => cell.status === "ok" || (cell.status === "error" && (cell.error?.traceback.length ?? 0) > 0),
    )
  );
}

type ParsedValues = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];
type Tokens = NonNullable<ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["tokens"]>;

/** The eval input from --input, or from -c/FILE/notebook cells in command-line order. */
async function buildRawInput(
  values: ParsedValues,
  tokens: Tokens,
  io: CommandIo,
  hasServer: boolean,
  runtimes: readonly RuntimeSpec[],
): Promise<{ input: unknown; notebooks: NotebookInput[] }> {
  const timeout = readNumberOption("--timeout", values.timeout);
  const isLocal =
    values.lang !== undefined &&
    (toLocalLanguage(values.lang) !== undefined || findRuntime(runtimes, values.lang) !== undefined);
  if (values.lang !== undefined && !isLocal && !(hasServer && values.lang.trim() !== "")) {
    throw new UsageError(`--lang: expected "py" or "js", got ${JSON.stringify(values.lang)}`);
  }
  const cells: RawCell[] = [];
  const notebooks: NotebookInput[] = [];
  let hasStdinCell = false;
  for (const token of tokens) {
    if (token.kind === "option" && token.name === "code") {
      cells.push({ language: values.lang ?? "py", code: token.value ?? "" });
    } else if (token.kind === "positional") {
      if (token.value === "-") {
        if (hasStdinCell) throw new UsageError("stdin (-) can be read only once");
        hasStdinCell = true;
        const language = values.lang ?? "py";
        const bytes = await readStdinBytes(io, "-");
        cells.push({ language, code: decodeSourceFile(bytes, language, "stdin"), title: "stdin" });
        continue;
      }
      if (extname(token.value).toLowerCase() === ".ipynb") {
        checkFileSize(token.value, "FILE");
        const fallback = toLocalLanguage(values.lang ?? "") ?? "py";
        const notebook = readNotebook(token.value, fallback, hasServer);
        const slots: NotebookInput["slots"] = [];
        for (const cell of notebook.cells) {
          slots.push({ cellIndex: cell.cellIndex, evalIndex: cells.length });
          cells.push({ language: notebook.language, code: cell.code, title: cell.title });
        }
        notebooks.push({ notebook, slots });
        continue;
      }
      const extension = extname(token.value).toLowerCase();
      const language =
        EXTENSIONS[extension] ??
        (hasServer ? SERVER_EXTENSIONS[extension] : undefined) ??
        values.lang ??
        "py";
      const label = `FILE ${JSON.stringify(token.value)}`;
      cells.push({
        language,
        code: decodeSourceFile(readSource(token.value), language, label),
        title: basename(token.value),
      });
    }
  }

  if (values.input !== undefined) {
    if (cells.length > 0 || notebooks.length > 0) {
      throw new UsageError("--input cannot be combined with -c or FILE cells");
    }
    const text =
      values.input === "-"
        ? await readStdin(io, "--input -")
        : readSource(values.input, "--input").toString("utf8");
    let input: unknown;
    try {
      input = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text); // a BOM, as notebooks may have
    } catch (err) {
      throw new UsageError(`--input: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (timeout !== undefined && input !== null && typeof input === "object" && !Array.isArray(input)) {
      return { input: { ...input, timeout }, notebooks };
    }
    return { input, notebooks };
  }
  if (cells.length === 0 && notebooks.length === 0) {
    throw new UsageError("nothing to run: give -c CODE, FILE or --input");
  }
  return { input: timeout === undefined ? { cells } : { cells, timeout }, notebooks };
}

function isNotebookWithoutCode(input: unknown, notebooks: NotebookInput[]): boolean {
  const cells = (input as { cells?: unknown[] } | null)?.cells;
  return notebooks.length > 0 && Array.isArray(cells) && cells.length === 0;
}

/** Checks --output-notebook before anything runs: one nbformat 4 notebook among the inputs, a directory to write to. */
function checkOutputNotebook(
  path: string | undefined,
  notebooks: NotebookInput[],
): { path: string; from: NotebookInput } | undefined {
  if (path === undefined) return undefined;
  const [from, ...others] = notebooks;
  if (from === undefined || others.length > 0) {
    throw new UsageError(
      `--output-notebook needs exactly one .ipynb input, got ${notebooks.length === 0 ? "none" : notebooks.length}`,
    );
  }
  if (from.notebook.nbformat !== 4) {
    throw new UsageError(
      `--output-notebook needs an nbformat 4 notebook (${from.notebook.file} is nbformat ${from.notebook.nbformat})`,
    );
  }
  if (path.endsWith("/") || (existsSync(path) && statSync(path).isDirectory())) {
    throw new UsageError(`--output-notebook ${JSON.stringify(path)} is a directory; name the file to write`);
  }
  const directory = dirname(path);
  if (path === "" || !existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new UsageError(
      `--output-notebook ${JSON.stringify(path)}: no such directory ${JSON.stringify(directory)}`,
    );
  }
  return { path, from };
}

/**
 * Where text mode saves images: --images DIR, else $EVALKIT_HOME/images. Checked before anything runs (a file in
 * the way, a directory that cannot be written is exit 2); created only when the first image comes.
 */
function checkImagesDir(option: string | undefined): string {
  if (option === undefined) return join(resolveEvalkitHome(process.env), "images");
  if (option.trim() === "") throw new UsageError("--images needs a directory");
  const dir = resolve(option);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) {
      throw new UsageError(`--images ${JSON.stringify(option)} is not a directory`);
    }
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      throw new UsageError(`--images ${JSON.stringify(option)}: the directory is not writable`);
    }
  }
  return dir;
}

function readSource(file: string, what = "FILE"): Buffer {
  return readFileLimited(file, what);
}

async function readStdinBytes(io: CommandIo, what: string): Promise<Buffer> {
  if (!io.stdin) throw new UsageError(`${what}: no standard input available`);
  return readStreamLimited(io.stdin, `${what}: standard input`);
}

async function readStdin(io: CommandIo, what: string): Promise<string> {
  return (await readStdinBytes(io, what)).toString("utf8");
}

/** One line explaining why Python cannot run, when some cell needs it; undefined when all is well. */
/** With a Jupyter server: why it cannot serve cells (unreachable, refused token), checked before any cell runs. */
async function describeMissingServer(tool: EvalTool): Promise<string | undefined> {
  const status = await tool.checkBackends();
  return status.jupyter === undefined || status.jupyter.available ? undefined : status.jupyter.reason;
}

async function describeMissingPython(tool: EvalTool, input: EvalInput): Promise<string | undefined> {
  // Only Python needs an interpreter found on the host; JS runs in this Node process's own binary.
  const needsPython = input.cells.some((cell) => cell.language === "py");
  const mayUsePython = input.cells.some((cell) => cell.language === undefined);
  if (!needsPython && !mayUsePython) return undefined;
  const status = await tool.checkBackends();
  if (status.py.available || (!needsPython && status.js.available)) return undefined;
  const first = (status.py.reason ?? "no usable Python interpreter")
    .split("\n", 1)[0]!
    .replace(/\s*Tried:$/, "");
  return `${first} Use --python PATH or EVALKIT_PYTHON; "evalkit doctor" shows what was tried.`;
}
