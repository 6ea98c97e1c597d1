// Writes to the process's stdout/stderr that cannot fail loudly: a full disk, a closed pipe or a broken terminal
// ends the command with one line on stderr and a non-zero status, never an uncaught stack trace.

/** Why standard output or error could not be written, once it happened. */
export interface StdioFailure {
  stream: "stdout" | "stderr";
  code: string;
  message: string;
}

let failure: StdioFailure | null = null;
let isStdoutClosed = false;
let isStderrBroken = false;
let isInstalled = false;

const DESCRIPTIONS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EIO: "input/output error",
  EBADF: "bad file descriptor",
  EFBIG: "file too large",
  EDQUOT: "disk quota exceeded",
  EPIPE: "the reader closed the pipe",
};

function toFailure(stream: "stdout" | "stderr", err: unknown): StdioFailure {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? "EIO";
  const message = DESCRIPTIONS[code] ?? (err instanceof Error ? err.message : String(err));
  return { stream, code, message };
}

function noteStdoutError(err: unknown): void {
  // `evalkit exec nb.ipynb --output-notebook out.ipynb | head`: once the reader is gone, output is dropped and
  // the run goes on (the notebook is still written), as it always did; the exit status stays the run's.
  if ((err as NodeJS.ErrnoException | null)?.code === "EPIPE") {
    isStdoutClosed = true;
    return;
  }
  isStdoutClosed = true;
  failure ??= toFailure("stdout", err);
}

function noteStderrError(err: unknown): void {
  isStderrBroken = true;
  failure ??= toFailure("stderr", err);
}

/** Listens for asynchronous write errors (pipes, sockets) so they are recorded instead of thrown. Idempotent. */
export function installStdioGuard(): void {
  if (isInstalled) return;
  isInstalled = true;
  process.stdout.on("error", noteStdoutError);
  process.stderr.on("error", noteStderrError);
}

/** Writes to stdout; after a failure (or a closed reader) further output is dropped. */
export function writeStdout(text: string | Uint8Array): void {
  if (isStdoutClosed) return;
  try {
    process.stdout.write(text);
  } catch (err) {
    // Files and terminals are written synchronously: the error surfaces here rather than as an event.
    noteStdoutError(err);
  }
}

/** Writes to stderr; a broken stderr is remembered and further writes are dropped. */
export function writeStderr(text: string): void {
  if (isStderrBroken) return;
  try {
    process.stderr.write(text);
  } catch (err) {
    noteStderrError(err);
  }
}

/** The first failure seen, if any. */
export function stdioFailure(): StdioFailure | null {
  return failure;
}

/**
 * The exit status once a command finished with `code`: unchanged when every write went through; otherwise
 * one line on stderr (when stderr still works) and at least 1.
 */
export async function finishWithStdio(code: number): Promise<number> {
  await flushStdout();
  if (failure === null) return code;
  if (failure.stream === "stdout")
    writeStderr(`evalkit: could not write to standard output: ${failure.message} (${failure.code})\n`);
  return code === 0 ? 1 : code;
}

/**
 * Resolves once the errors of earlier writes arrived: a file or terminal write fails synchronously but the
 * stream reports it a tick later. (No probe write: a zero-byte write to a full device fails too.)
 */
function flushStdout(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Test hook: forget what happened (the guard stays installed). */
export function resetStdioGuard(): void {
  failure = null;
  isStdoutClosed = false;
  isStderrBroken = false;
}
