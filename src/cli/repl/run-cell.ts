// Runs one REPL cell through the session: live output, Ctrl-C, input() answered at the prompt, and how it ended.
import type { CellLanguage, CellStatus } from "../../contracts/cell-result.js";
import type { ArtifactStore } from "../../output/artifacts/artifact-store.js";
import type { InteractiveRenderOptions } from "../../render/interactive-render.js";
import type { SessionCellOutcome } from "../../session/session-types.js";
import { CellPrinter, type LastCellOutput } from "./cell-output.js";
import type { ImageOutput } from "./images.js";
import type { ReplKernels } from "./kernels.js";
import type { LineInput, ReadResult } from "./line-input.js";
import { Spinner, type TerminalOutput } from "./terminal.js";

export interface CellRunContext {
  kernels: ReplKernels;
  terminal: TerminalOutput;
  lineInput: LineInput;
  render: InteractiveRenderOptions;
  images: ImageOutput;
  artifacts: ArtifactStore;
  /** The REPL routes Ctrl-C to the running cell through this slot. */
  setInterruptHandler: (handler: (() => void) | undefined) => void;
  /** Session notices the REPL already showed once (a sandbox fact, not news about this cell). */
  quietNotices?: ReadonlySet<string>;
}

export interface CellRunResult {
  status: CellStatus;
  output: LastCellOutput;
}

/**
 * Runs `code` on the session's kernel of `language` and prints everything it does. A cell's own failures
 * (errors, timeouts, interrupts, deaths) are printed; a kernel that cannot be started throws, as it did.
 */
export async function runReplCell(
  code: string,
  language: CellLanguage,
  context: CellRunContext,
): Promise<CellRunResult> {
  const { kernels, terminal, render } = context;
  // A kernel that ended since the last cell (killed from outside, evicted) is replaced by one counting from 1.
  if (!(await kernels.isAlive(language))) kernels.nextCount[language] = 1;
  const spinner = new Spinner(terminal, render);
  const printer = new CellPrinter({
    terminal,
    render,
    images: context.images,
    spinner,
    artifacts: context.artifacts,
    executionCount: kernels.nextCount[language] ?? 1,
  });
  const controller = new AbortController();
  const interruptCell = () => {
    // The first Ctrl-C aborts the cell's signal: the session interrupts the cell, and the kernel client kills it
    // when it has not ended within the grace. Later ones repeat the interrupt, as in IPython.
    if (!controller.signal.aborted) controller.abort();
    else void kernels.interruptAgain(language);
  };
  context.setInterruptHandler(interruptCell);
  spinner.start(Date.now());
  let outcome: SessionCellOutcome;
  try {
    outcome = await kernels.run(code, language, {
      signal: controller.signal,
      onOutput: (output) => printer.handle(output),
      onInputRequest: async (prompt, isPassword) => {
        spinner.pause();
        try {
          const read = await askUser(context, prompt, isPassword);
          if (read.kind === "line") {
            if (!isPassword) printer.recordEcho(`${prompt}${read.text}\n`);
            return read.text;
          }
          if (read.kind === "interrupt") {
            interruptCell();
            throw new Error("input interrupted");
          }
          throw new Error("EOF when reading a line");
        } finally {
          spinner.resume();
        }
      },
    });
  } catch (err) {
    // No cell ran (the kernel could not start): the caller reports why at the prompt.
    spinner.stop();
    throw err;
  } finally {
    context.setInterruptHandler(undefined);
  }
  if (outcome.executionCount !== null) printer.executionCount = outcome.executionCount;
  const notices = selectNotices(outcome.notices, context.quietNotices);
  // Killed without a Ctrl-C: the session's watchdog interrupted it at --timeout and the cell ignored that.
  if (outcome.status === "killed" && !controller.signal.aborted)
    notices.push("[timeout] the cell ran past --timeout and ignored the interrupt");
  const output = printer.finish({
    status: outcome.status,
    durationMs: outcome.durationMs,
    ...(outcome.error ? { error: outcome.error } : {}),
    notices,
  });
  return { status: outcome.status, output };
}

/**
 * The session's notices a person needs. Those opening "eval cell" restate how the cell ended, in the words the
 * eval tool gives a model (`eval cell timed out after 2s; kernel interrupted but remains running`): the REPL says
 * that once, in its own words (`[timeout] …`, `[cancelled] …`, `[killed] …`). Restarts, undo points, recoveries
 * and how a kernel died stay.
 */
export function selectNotices(notices: string[], quiet?: ReadonlySet<string>): string[] {
  return notices.filter((notice) => !notice.startsWith("eval cell") && quiet?.has(notice) !== true);
}

/** Asks at the REPL's own prompt, on a line of its own (readline redraws from column 0). */
function askUser(context: CellRunContext, prompt: string, isPassword: boolean): Promise<ReadResult> {
  const { terminal, lineInput } = context;
  terminal.ensureLineStart();
  const cut = prompt.lastIndexOf("\n");
  if (cut !== -1) terminal.write(prompt.slice(0, cut + 1));
  const lastLine = prompt.slice(cut + 1);
  return lineInput.readLine(lastLine, { isHistory: false, isSecret: isPassword });
}
