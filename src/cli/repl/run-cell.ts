// Runs one REPL cell: live output, Ctrl-C/timeout interrupts, input() answered at the prompt, and how it ended.
import type { CellLanguage, CellStatus } from "../../contracts/cell-result.js";
import { isEvalkitError } from "../../errors.js";
import type { ArtifactStore } from "../../output/artifact-store.js";
import type { InteractiveRenderOptions } from "../../render/interactive-render.js";
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
  /** Interrupt the cell after this long (undefined: no limit). */
  timeoutSec?: number;
  /** The REPL routes Ctrl-C to the running cell through this slot. */
  setInterruptHandler: (handler: (() => void) | undefined) => void;
}

export interface CellRunResult {
  status: CellStatus;
  output: LastCellOutput;
}

/** Runs `code` on the kernel of `language` and prints everything it does; never throws for cell failures. */
export async function runReplCell(
  code: string,
  language: CellLanguage,
  context: CellRunContext,
): Promise<CellRunResult> {
  const { kernels, terminal, render } = context;
  const kernel = await kernels.get(language);
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
  let isTimedOut = false;
  let interrupts = 0;
  context.setInterruptHandler(() => {
    interrupts += 1;
    // The first Ctrl-C starts the kernel's interrupt-then-kill ladder; later ones repeat the interrupt.
    if (interrupts === 1) controller.abort();
    else kernel.interrupt();
  });
  const timer =
    context.timeoutSec === undefined
      ? undefined
      : setTimeout(() => {
          isTimedOut = true;
          controller.abort();
        }, context.timeoutSec * 1000);
  const startedAt = Date.now();
  spinner.start(startedAt);
  const notices: string[] = [];
  let status: CellStatus;
  let error: { ename: string; evalue: string; traceback: string[] } | undefined;
  try {
    const outcome = await kernel.execute(code, {
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
            controller.abort();
            throw new Error("input interrupted");
          }
          throw new Error("EOF when reading a line");
        } finally {
          spinner.resume();
        }
      },
    });
    if (outcome.executionCount !== null) {
      printer.executionCount = outcome.executionCount;
      kernels.nextCount[language] = outcome.executionCount + 1;
    }
    status = outcome.cancelled ? (isTimedOut ? "timeout" : "cancelled") : outcome.status;
    error = outcome.error;
  } catch (err) {
    const details = isEvalkitError(err) ? err.details : {};
    // After Ctrl-C or --timeout the kernel only ends through the kill ladder: that is a kill, not a crash.
    status = details.killed === true || controller.signal.aborted ? "killed" : "died";
    if (isTimedOut && status === "killed")
      notices.push("[timeout] the cell ran past --timeout and ignored the interrupt");
    if (!(isEvalkitError(err) && err.code === "KERNEL_DIED"))
      notices.push(err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
    context.setInterruptHandler(undefined);
  }
  const output = printer.finish({
    status,
    durationMs: Date.now() - startedAt,
    ...(error ? { error } : {}),
    notices,
  });
  return { status, output };
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
