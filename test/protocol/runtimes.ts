// Runtime descriptions for the conformance suite: how to start each runner the way the host does, how to send
// it a cell, what it can do, and the few snippets of its language the shared frame scripts run.
import { spawnSync } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import { buildJsKernelCommand } from "../../src/kernel/js/js-command.js";
import { rewriteJsCell } from "../../src/kernel/js/js-rewrite.js";
import { OrderedChannels } from "../../src/kernel/js/ordered-channels.js";
import { buildPythonLaunch } from "../../src/kernel/python/python-command.js";
import { buildRunnerBundle } from "../../src/kernel/python/runner-bundle.js";
import { createRandomToken } from "../../src/text/random-tokens.js";
import { TEST_PYTHON } from "../helpers/interpreters.js";
import { type RunnerEvent, type SpawnedRunner, spawnGroupLeader } from "./raw-runner.js";

/** Cells in the runtime's language that the shared scripts run. */
export interface Snippets {
  /** Writes "a\n" to stdout, then "b\n" to stderr, then "c\n" to stdout. */
  streams: string;
  /** Shows text/plain "one" as display "d1", then replaces it with "two". */
  displayUpdate: string;
  /** Evaluates to 42. */
  result: string;
  /** Raises; `errorName` is the `ename` expected. */
  error: string;
  errorName: string;
  /** Never ends on its own and never yields. */
  busy: string;
  /** Asks the host `completion("ping")` and evaluates to the answer. */
  bridgeCall: string;
  /** Defines the global `conformance_value`. */
  define: string;
  /** Reads a line with prompt "name? " and evaluates to it (runtimes with input only). */
  readInput?: string;
}

export interface RuntimeDescription {
  name: string;
  /** Starts the runner as the host does; the runner's first frame is `ready`. */
  spawn(cwd: string): SpawnedRunner;
  /** The execute frame of a cell. */
  executeFrame(id: string, code: string, options?: { allowStdin?: boolean }): Record<string, unknown>;
  /** Interrupts cell `id`: the frame, plus whatever signal the runtime needs while a cell holds its thread. */
  interrupt(send: (frame: Record<string, unknown>) => void, pid: number, id: string): void;
  /** Fields the runtime's `ready` frame carries beyond the common ones. */
  readyFields: string[];
  /** The runner sends `started` before a cell's other frames. */
  sendsStarted: boolean;
  /** The runner echoes the execute frame's `nonce` on result, error and done. */
  echoesNonce: boolean;
  /** The runner answers `input()` with `input_request` under `allowStdin`, and fails it otherwise. */
  hasInput: boolean;
  /** The runner answers `is_complete`. */
  hasIsComplete: boolean;
  snippets: Snippets;
}

/** For runners whose streams travel as `stdout`/`stderr` frames: those become text events, the rest frames. */
function streamFramesAsText(push: (event: RunnerEvent) => void) {
  return (frame: Record<string, unknown>) => {
    if ((frame.type === "stdout" || frame.type === "stderr") && typeof frame.data === "string") {
      push({ kind: "text", name: frame.type, text: frame.data });
      return;
    }
    push({ kind: "frame", frame });
  };
}

/** The Python runner: `python -u -c <bootstrap>`, the bundle on stdin, NDJSON on stdin/stdout. */
export const pythonRuntime: RuntimeDescription = {
  name: "python",
  spawn(cwd) {
    const launch = buildPythonLaunch({ python: TEST_PYTHON, cwd, codeCacheDir: false });
    const child = spawnGroupLeader(launch.command, launch.args, ["pipe", "pipe", "pipe"], launch.env, cwd);
    child.stderr?.resume(); // diagnostics only
    child.stdin?.on("error", () => undefined);
    child.stdin?.write(buildRunnerBundle(launch.runnerConfig));
    return {
      child,
      input: child.stdin as NonNullable<typeof child.stdin>,
      frames: child.stdout as NonNullable<typeof child.stdout>,
      attach: streamFramesAsText,
    };
  },
  executeFrame(id, code, options = {}) {
    return {
      type: "execute",
      id,
      code,
      nonce: createRandomToken(12),
      ...(options.allowStdin ? { allowStdin: true } : {}),
    };
  },
  interrupt(send, _pid, id) {
    send({ type: "interrupt", id });
  },
  readyFields: ["python", "implementation", "executable"],
  sendsStarted: true,
  echoesNonce: true,
  hasInput: true,
  hasIsComplete: true,
  snippets: {
    streams: 'import sys\nprint("a")\nsys.stderr.write("b\\n")\nprint("c")',
    displayUpdate:
      'display({"text/plain": "one"}, raw=True, display_id="d1")\n' +
      'update_display({"text/plain": "two"}, display_id="d1", raw=True)',
    result: "6 * 7",
    error: "1 / 0",
    errorName: "ZeroDivisionError",
    busy: "while True:\n    pass",
    bridgeCall: 'completion("ping")',
    define: "conformance_value = 1",
    readInput: 'input("name? ")',
  },
};

let jsCells = 0;

/** The JS runner: node with frames on fd 3 and raw stdout/stderr pipes ordered by sync markers. */
export const jsRuntime: RuntimeDescription = {
  name: "javascript",
  spawn(cwd) {
    const nonce = createRandomToken(8);
    const { command, args } = buildJsKernelCommand({
      node: process.execPath,
      maxHeapMb: 512,
      syncNonce: nonce,
      statusMime: STATUS_MIME,
    });
    const child = spawnGroupLeader(command, args, ["ignore", "pipe", "pipe", "pipe"], process.env, cwd);
    const channel = child.stdio[3] as Socket;
    channel.on("error", () => undefined);
    return {
      child,
      input: channel,
      frames: channel,
      attach: (push: (event: RunnerEvent) => void) => {
        const merger = new OrderedChannels(nonce, (item) =>
          push(item.kind === "frame" ? item : { kind: "text", name: item.name, text: item.text }),
        );
        child.stdout?.on("data", (chunk: Buffer) => merger.stdout(chunk));
        child.stderr?.on("data", (chunk: Buffer) => merger.stderr(chunk));
        child.once("exit", () => merger.flush());
        return (frame) => merger.frame(frame);
      },
    };
  },
  executeFrame(id, code) {
    // The host rewrites JS cells (top-level declarations, await) before sending them: the runner has no parser.
    const rewritten = rewriteJsCell(code);
    jsCells += 1;
    return {
      type: "execute",
      id,
      code: rewritten.code,
      isAsync: rewritten.isAsync,
      hasResult: rewritten.hasResult,
      lineOffset: rewritten.lineOffset,
      filename: `<cell ${jsCells}>`,
      executionCount: jsCells,
      nonce: createRandomToken(12),
    };
  },
  interrupt(send, pid, id) {
    // A synchronous loop holds node's only JS thread: SIGINT (breakOnSigint) ends it, the frame covers awaits.
    send({ type: "interrupt", id });
    process.kill(-pid, "SIGINT");
  },
  readyFields: ["node"],
  sendsStarted: false,
  echoesNonce: true,
  hasInput: false,
  hasIsComplete: false,
  snippets: {
    streams: 'console.log("a"); console.error("b"); console.log("c")',
    displayUpdate: 'display("one", { displayId: "d1" }); display("two", { displayId: "d1", update: true })',
    result: "6 * 7",
    error: "null.x",
    errorName: "TypeError",
    busy: "for (;;) {}",
    bridgeCall: 'await completion("ping")',
    define: "var conformance_value = 1",
  },
};

/** The third runner: a Perl script written from docs/protocol.md alone; NDJSON on stdin/stdout, no bundle. */
export const PERL_RUNNER = fileURLToPath(new URL("../fixtures/perl-runner.pl", import.meta.url));

/** Why the Perl runner cannot run here (no perl, or no JSON::PP), or undefined when it can. */
export function findPerlMissing(): string | undefined {
  const probe = spawnSync("perl", ["-MJSON::PP", "-e", "1"], { stdio: "ignore" });
  if (probe.error) return `perl is not on PATH (${probe.error.message})`;
  return probe.status === 0 ? undefined : "perl has no JSON::PP module";
}

export const perlRuntime: RuntimeDescription = {
  name: "perl",
  spawn(cwd) {
    const child = spawnGroupLeader("perl", [PERL_RUNNER], ["pipe", "pipe", "pipe"], process.env, cwd);
    child.stderr?.resume();
    child.stdin?.on("error", () => undefined);
    return {
      child,
      input: child.stdin as NonNullable<typeof child.stdin>,
      frames: child.stdout as NonNullable<typeof child.stdout>,
      attach: streamFramesAsText,
    };
  },
  executeFrame: pythonRuntime.executeFrame,
  interrupt(send, pid, id) {
    // A busy Perl cell never reads its requests: SIGINT reaches it, the frame covers a cell not started yet.
    send({ type: "interrupt", id });
    process.kill(-pid, "SIGINT");
  },
  readyFields: ["perl"],
  sendsStarted: true,
  echoesNonce: true,
  hasInput: true,
  hasIsComplete: false,
  snippets: {
    streams: 'print "a\\n"; print STDERR "b\\n"; print "c\\n";',
    displayUpdate: 'display("one", display_id => "d1"); display("two", display_id => "d1", update => 1);',
    result: "6 * 7",
    error: "1 / 0",
    errorName: "Died",
    busy: "1 while 1;",
    bridgeCall: 'completion("ping")',
    define: "our $conformance_value = 1;",
    readInput: 'input("name? ")',
  },
};
