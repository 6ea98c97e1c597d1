// `evalkit repl`: the interactive terminal front end — prompt, commands, cells, and a clean shutdown.
import { realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CellLanguage } from "../../contracts/cell-result.js";
import { EvalkitError, isEvalkitError } from "../../errors.js";
import { createArtifactStore } from "../../output/artifacts/artifact-store.js";
import { createPalette, shouldUseColor } from "../../render/color.js";
import type { InteractiveRenderOptions } from "../../render/interactive-render.js";
import { resolveEvalkitHome } from "../../runtime/evalkit-home.js";
import { describeWeakMemoryLimit } from "../../runtime/sandbox-layers.js";
import { parseReplArgs, REPL_USAGE, type ReplArgs, replSandbox } from "./args.js";
import type { LastCellOutput } from "./cell-output.js";
import { CLEAR_SCREEN, parseReplCommand, REPL_HELP, renderMore } from "./commands.js";
import { HISTORY_LIMIT, loadHistory, resolveHistoryPath, saveHistory } from "./history.js";
import { detectImageProtocol, ImageOutput } from "./images.js";
import { type PythonDescription, ReplKernels } from "./kernels.js";
import { LineInput } from "./line-input.js";
import { formatPrompts, isReplCommand, readCell } from "./read-cell.js";
import { runReplCell } from "./run-cell.js";
import { TerminalOutput } from "./terminal.js";
import { runTimeTravel, type TimeTravelCommand } from "./time-travel.js";

/** Runs the REPL until :quit / Ctrl-D / end of input; resolves to the exit status. */
export async function runRepl(argv: string[]): Promise<number> {
  const args = parseReplArgs(argv);
  if (args.isHelp) {
    process.stdout.write(REPL_USAGE);
    return 0;
  }
  const cwd = checkCwd(args.cwd ?? process.cwd());
  const session = new ReplSession(args, cwd);
  return session.run();
}

function checkCwd(dir: string): string {
  try {
    const real = realpathSync(resolve(dir));
    if (statSync(real).isDirectory()) return real;
  } catch {
    // reported below
  }
  throw new EvalkitError("INVALID_INPUT", `repl: --cwd ${dir} is not a directory`, { field: "cwd" });
}

class ReplSession {
  private readonly args: ReplArgs;
  private readonly terminal = new TerminalOutput(process.stdout);
  private readonly render: InteractiveRenderOptions;
  private readonly kernels: ReplKernels;
  private readonly home = resolveEvalkitHome(process.env);
  private language: CellLanguage;
  private last: LastCellOutput | undefined;
  private interruptCell: (() => void) | undefined;
  private lineInput: LineInput | undefined;
  private readonly weakLimit: string | undefined;

  constructor(args: ReplArgs, cwd: string) {
    this.args = args;
    this.render = { color: shouldUseColor(process.stdout, process.env) };
    this.language = args.startInJs ? "js" : "py";
    const { sandbox, limits } = replSandbox(args, cwd);
    // Said once at start rather than with every cell (each cell is one call of the session, which says it per call).
    this.weakLimit = sandbox ? describeWeakMemoryLimit(limits) : undefined;
    this.kernels = new ReplKernels({
      cwd,
      ...(args.python !== undefined ? { python: args.python } : {}),
      ...(sandbox !== undefined ? { sandbox } : {}),
      ...(limits !== undefined ? { limits } : {}),
      ...(args.timeoutSec !== undefined ? { timeoutSec: args.timeoutSec } : {}),
      ...(args.launcher !== undefined ? { launcher: args.launcher } : {}),
      ...(args.jupyter !== undefined ? { jupyter: args.jupyter } : {}),
      ...(args.checkpoints !== undefined ? { checkpoints: args.checkpoints } : {}),
    });
  }

  async run(): Promise<number> {
    const palette = createPalette(this.render);
    // Input is live before the kernel starts, so lines typed during start-up queue instead of echoing raw.
    const historyPath = resolveHistoryPath(this.home, this.args.session);
    let historyError: string | undefined;
    const lineInput = new LineInput({
      input: process.stdin,
      output: process.stdout,
      terminal: this.terminal,
      history: loadHistory(historyPath),
      historySize: HISTORY_LIMIT,
      onHistory: (history) => {
        const error = saveHistory(historyPath, history);
        if (error !== undefined && historyError === undefined) {
          historyError = error;
          this.terminal.write(`${palette.dim(`history not saved: ${error}`)}\n`);
        }
      },
      onInterrupt: () => this.interruptCell?.(),
      complete: (line) => this.kernels.complete(this.language, line),
    });
    this.lineInput = lineInput;
    const onSignal = () => {
      // Without a terminal (piped stdin) Ctrl-C arrives as a signal: same meaning as the key.
      if (this.interruptCell) this.interruptCell();
      else if (!lineInput.interruptPending()) void this.close();
    };
    const onHangup = () => void this.close().then(() => process.exit(129));
    process.on("SIGINT", onSignal);
    process.on("SIGHUP", onHangup);
    process.on("SIGTERM", onHangup);
    try {
      let python: PythonDescription | undefined;
      try {
        python = await this.kernels.startPython();
      } catch (err) {
        const message = isEvalkitError(err) ? `${err.message} [${err.code}]` : String(err);
        if (
          this.args.python !== undefined ||
          this.args.launcher !== undefined ||
          this.kernels.serverUrl !== undefined
        ) {
          process.stderr.write(`evalkit repl: ${message}\n`);
          return 1;
        }
        this.terminal.write(
          `${palette.yellow(`no Python: ${message}`)}\n${palette.dim("continuing in JavaScript")}\n`,
        );
        this.language = "js";
      }
      this.terminal.write(`${this.banner(python)}\n`);
      await this.loop(lineInput, python !== undefined);
      return 0;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGHUP", onHangup);
      process.off("SIGTERM", onHangup);
      await this.close();
    }
  }

  private async loop(lineInput: LineInput, hasPython: boolean): Promise<void> {
    const images = new ImageOutput({
      protocol: detectImageProtocol(process.env, process.stdout.isTTY === true),
      dir: join(this.home, "images"),
      isManagedDir: true,
    });
    const artifacts = createArtifactStore({ dir: join(this.home, "artifacts") });
    const palette = createPalette(this.render);
    for (;;) {
      const language = this.language;
      const prompts = formatPrompts(language, this.kernels.nextCount[language] ?? 1, this.render.color);
      const read = await readCell(lineInput, prompts, (code) => this.kernels.checkComplete(language, code));
      if (read.kind === "eof") return;
      if (read.kind === "interrupt") continue;
      let code = read.code;
      let cellLanguage = language;
      if (isReplCommand(code)) {
        const command = parseReplCommand(code);
        if (command.kind === "quit") return;
        if (command.kind === "clear") {
          // Only a terminal has a screen to clear; piped output gets nothing rather than escape bytes.
          if (this.terminal.isTTY) this.terminal.write(CLEAR_SCREEN);
          continue;
        }
        if (command.kind === "help") {
          this.terminal.write(REPL_HELP);
          continue;
        }
        if (command.kind === "more") {
          this.terminal.write(renderMore(this.last, this.render));
          continue;
        }
        if (command.kind === "unknown" && this.kernels.serverUrl !== undefined && command.name !== "") {
          // With a Jupyter server, `:r` / `:r CODE` switch to (or run one line in) one of its languages.
          const switched = await this.switchToServerLanguage(command.name, code);
          if (switched === undefined) continue;
          if (switched.code === undefined) {
            this.language = switched.language;
            continue;
          }
          code = switched.code;
          cellLanguage = switched.language;
        } else if (command.kind === "unknown") {
          this.terminal.write(`${palette.yellow(`unknown command :${command.name}`)} (try :help)\n`);
          continue;
        }
        if (command.kind === "restart") {
          await this.restart(language);
          continue;
        }
        if (
          command.kind === "checkpoint" ||
          command.kind === "restore" ||
          command.kind === "undo" ||
          command.kind === "checkpoints"
        ) {
          await this.travel(command);
          continue;
        }
        if (command.kind === "unknown") {
          // handled above: a server language's one line
        } else if (
          // Python needs an interpreter found on the host; JS always has this Node process's.
          command.language === "py" &&
          !hasPython &&
          !(await this.kernels.isAlive("py"))
        ) {
          this.terminal.write(`${palette.yellow("Python is not available in this session")}\n`);
          continue;
        } else if (command.code === undefined) {
          this.language = command.language;
          continue;
        } else {
          code = command.code;
          cellLanguage = command.language;
        }
      }
      try {
        const result = await runReplCell(code, cellLanguage, {
          kernels: this.kernels,
          terminal: this.terminal,
          lineInput,
          render: this.render,
          images,
          artifacts,
          ...(this.weakLimit !== undefined ? { quietNotices: new Set([this.weakLimit]) } : {}),
          setInterruptHandler: (handler) => {
            this.interruptCell = handler;
          },
        });
        this.last = result.output;
        // With checkpoints the session brought a fresh interpreter back from the surviving root (its notes are
        // printed with the cell); otherwise the kernel is gone, and a fresh one starts now rather than at the next cell.
        if (
          (result.status === "killed" || result.status === "died") &&
          !(await this.kernels.isAlive(cellLanguage))
        )
          await this.restart(cellLanguage);
      } catch (err) {
        // The kernel could not be started or reached: report it and keep the prompt.
        const message = isEvalkitError(err) ? `${err.message} [${err.code}]` : String(err);
        this.terminal.ensureLineStart();
        this.terminal.write(`${palette.boldRed(`evalkit: ${message}`)}\n`);
      }
      if (lineInput.isEnded) return;
    }
  }

  /** `:checkpoint NAME`, `:restore NAME`, `:undo`, `:checkpoints` (docs/checkpoints.md). */
  private async travel(command: TimeTravelCommand): Promise<void> {
    const palette = createPalette(this.render);
    try {
      this.terminal.write(`${palette.dim(await runTimeTravel(this.kernels, command))}\n`);
    } catch (err) {
      const message = isEvalkitError(err) ? `${err.message} [${err.code}]` : String(err);
      this.terminal.write(`${palette.boldRed(`evalkit: ${message}`)}\n`);
    }
  }

  /** `:NAME [CODE]` on a Jupyter server: the language it names, or undefined after saying it has none. */
  private async switchToServerLanguage(
    name: string,
    line: string,
  ): Promise<{ language: CellLanguage; code?: string } | undefined> {
    const palette = createPalette(this.render);
    try {
      const language = await this.kernels.resolveServerLanguage(name);
      const rest = /^\s*:\S*\s*([\s\S]*)$/.exec(line)?.[1] ?? "";
      this.kernels.nextCount[language] ??= 1;
      return rest.trim() === "" ? { language } : { language, code: rest };
    } catch (err) {
      const message = isEvalkitError(err) ? err.message : String(err);
      this.terminal.write(`${palette.yellow(message)}\n`);
      return undefined;
    }
  }

  private async restart(language: CellLanguage): Promise<void> {
    const palette = createPalette(this.render);
    try {
      const python = await this.kernels.restart(language);
      // Python's restart names the interpreter it found; JS has only this Node, so its name says enough.
      const what = python
        ? `Python ${python.version}${python.pid !== undefined ? `, pid ${python.pid}` : ""}`
        : language === "js"
          ? "JavaScript"
          : language;
      this.terminal.write(
        `${palette.dim(`[note] started a fresh kernel (${what}); earlier variables are gone`)}\n`,
      );
    } catch (err) {
      const message = isEvalkitError(err) ? `${err.message} [${err.code}]` : String(err);
      this.terminal.write(`${palette.boldRed(`evalkit: could not restart the kernel: ${message}`)}\n`);
    }
  }

  private closing: Promise<void> | undefined;

  private close(): Promise<void> {
    this.closing ??= (async () => {
      this.lineInput?.close();
      await this.kernels.shutdown();
    })();
    return this.closing;
  }

  private banner(python: PythonDescription | undefined): string {
    const palette = createPalette(this.render);
    const parts = ["evalkit repl"];
    if (python) parts.push(`Python ${python.version} (${python.executable})`);
    if (this.kernels.serverUrl !== undefined)
      parts.push(":r, :julia… switch to the server's other languages");
    if (this.args.session) parts.push(`session ${this.args.session}`);
    // Python is the default mode and goes unsaid; JS mode is announced so `:py` is the way back.
    const mode = this.language === "js" ? " · JavaScript mode" : "";
    const limit = this.weakLimit !== undefined ? `\n${palette.dim(`[note] ${this.weakLimit}`)}` : "";
    return `${palette.bold(parts.join(" · "))}${mode}\n${palette.dim(":help for commands, :js / :py to switch language, Ctrl-D to exit")}${limit}`;
  }
}
