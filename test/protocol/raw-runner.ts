// A runner driven at the raw NDJSON level for the conformance suite: spawns it as the host does, validates every
// frame it sends (and every frame the test sends) against src/protocol/, and keeps one transcript of events.
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { hostFrame } from "../../src/protocol/host-frames.js";
import { runnerFrame } from "../../src/protocol/runner-frames.js";

/** One thing the runner said: a frame, or stream text (from a stream frame or from a raw stream pipe). */
export type RunnerEvent =
  | { kind: "frame"; frame: Record<string, unknown> }
  | { kind: "text"; name: "stdout" | "stderr"; text: string };

/** How the runner's process and channels look once spawned (what a runtime description's `spawn` returns). */
export interface SpawnedRunner {
  child: ChildProcess;
  /** Where host frames are written. */
  input: Writable;
  /** Where the runner's NDJSON frames come from. */
  frames: Readable;
  /**
   * Feeds one raw frame line (already validated) into the transcript; runners with stream pipes put the
   * pipes' text in order here too. Defaults to pushing the frame as it is.
   */
  attach?: (push: (event: RunnerEvent) => void) => (frame: Record<string, unknown>) => void;
}

/** Protocol conformance failures the suite collects instead of throwing from a stream callback. */
export interface Violation {
  line: string;
  issue: string;
}

export class RawRunner {
  readonly events: RunnerEvent[] = [];
  readonly violations: Violation[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiters = new Set<() => void>();
  private readonly deliver: (frame: Record<string, unknown>) => void;
  private carry = "";

  constructor(private readonly spawned: SpawnedRunner) {
    const push = (event: RunnerEvent) => {
      this.events.push(event);
      for (const wake of this.waiters) wake();
    };
    this.deliver = spawned.attach ? spawned.attach(push) : (frame) => push({ kind: "frame", frame });
    spawned.frames.setEncoding("utf8");
    spawned.frames.on("data", (chunk: string) => this.onData(chunk));
    this.exited = new Promise((resolve) => {
      spawned.child.once("exit", (code, signal) => {
        resolve({ code, signal });
        for (const wake of this.waiters) wake();
      });
    });
  }

  get pid(): number {
    return this.spawned.child.pid ?? -1;
  }

  /** Writes one host frame, after checking it against the host → runner schema (a test's typo fails here). */
  send(frame: Record<string, unknown>): void {
    const checked = hostFrame.safeParse(frame);
    if (!checked.success) throw new Error(`the test sent an invalid host frame: ${checked.error.message}`);
    this.spawned.input.write(`${JSON.stringify(frame)}\n`);
  }

  /** Writes one line as it is: for frames the schema rejects on purpose (an unknown type, say). */
  sendUnchecked(line: string): void {
    this.spawned.input.write(`${line}\n`);
  }

  /** Ends the request channel, as a host that goes away does. */
  closeInput(): void {
    this.spawned.input.end();
  }

  /** Frames received so far (stream text aside). */
  get frames(): Array<Record<string, unknown>> {
    return this.events.flatMap((event) => (event.kind === "frame" ? [event.frame] : []));
  }

  /** Resolves with the first frame matching `test` (already received or future); rejects after `timeoutMs`. */
  async waitForFrame(
    test: (frame: Record<string, unknown>) => boolean,
    timeoutMs = 20_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(test);
      if (found) return found;
      if (Date.now() > deadline) {
        const seen = JSON.stringify(this.events.slice(-10));
        throw new Error(`no such frame within ${timeoutMs} ms; last events: ${seen}`);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 50);
        this.waiters.add(wake);
      });
    }
  }

  /** Every event of cell `id` (frames carrying that id and stream text while it ran), once its `done` came. */
  async runCell(frame: Record<string, unknown>, timeoutMs = 20_000): Promise<RunnerEvent[]> {
    const id = String(frame.id);
    const from = this.events.length;
    this.send(frame);
    await this.waitForFrame((f) => f.type === "done" && f.id === id, timeoutMs);
    // Stream text written just before `done` travels on pipes for some runners: the ordering layer delivers
    // it before the done frame, so slicing up to and including `done` is exact.
    const end = this.events.findIndex(
      (event, index) =>
        index >= from && event.kind === "frame" && event.frame.type === "done" && event.frame.id === id,
    );
    return this.events.slice(from, end + 1);
  }

  /** Kills the runner's process group (it leads one, as the host spawns it) and waits for the exit. */
  async kill(): Promise<void> {
    const { child } = this.spawned;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }
    await this.exited;
  }

  private onData(chunk: string): void {
    const text = this.carry + chunk;
    const lines = text.split("\n");
    this.carry = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") this.onLine(line);
  }

  private onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.violations.push({ line, issue: "not JSON" });
      return;
    }
    const checked = runnerFrame.safeParse(value);
    if (!checked.success) this.violations.push({ line: line.slice(0, 500), issue: checked.error.message });
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      this.deliver(value as Record<string, unknown>);
    }
  }
}

/** Spawns `command` as a process-group leader, as both kernels do. */
export function spawnGroupLeader(
  command: string,
  args: string[],
  stdio: Array<"pipe" | "ignore">,
  env: NodeJS.ProcessEnv,
  cwd: string,
): ChildProcess {
  return spawn(command, args, { cwd, env, stdio, detached: true });
}
