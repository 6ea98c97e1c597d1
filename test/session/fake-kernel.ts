// A scriptable in-memory Kernel for unit tests of the session layer (queueing, eviction, crashes, bridge).
import type { CellLanguage } from "../../src/contracts/cell-result.js";
import type { KernelOutput } from "../../src/contracts/outputs.js";
import { EvalkitError } from "../../src/errors.js";
import type { ExecuteOptions, ExecuteOutcome, Kernel, KernelExit } from "../../src/kernel/kernel.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { KernelSpec, SessionManagerOptions } from "../../src/session/session-types.js";

/**
 * Cell "programs" (one per cell):
 *   `set NAME VALUE` / `get NAME`  state in the kernel's memory (printed on stdout)
 *   `sleep MS`                      ends after MS; an interrupt ends it with KeyboardInterrupt
 *   `hang`                          ignores interrupts; only shutdown ends it
 *   `die CODE` / `die-signal SIG`   the process exits during the cell
 *   `call METHOD JSON`              bridge call; prints the JSON of the value or `error: message`
 *   `fail`                          ends with a Python-style error
 *   `pid`                           prints the kernel's serial number
 */
export class FakeKernel implements Kernel {
  static serial = 0;
  readonly id = ++FakeKernel.serial;
  readonly state = new Map<string, string>();
  readonly log: string[] = [];
  isStarted = false;
  exitInfo: KernelExit | undefined;
  interrupts = 0;
  private listeners = new Set<(exit: KernelExit) => void>();
  private running: { interrupt: () => void; die: (exit: KernelExit) => void } | undefined;

  constructor(
    readonly spec: KernelSpec,
    private readonly behaviour: { failStart?: boolean; startDelayMs?: number } = {},
  ) {}

  get language(): CellLanguage {
    return this.spec.language;
  }

  get isAlive(): boolean {
    return this.isStarted && this.exitInfo === undefined;
  }

  async start(): Promise<void> {
    if (this.behaviour.startDelayMs) await sleep(this.behaviour.startDelayMs);
    if (this.exitInfo) throw new EvalkitError("KERNEL_START_FAILED", "shut down during start-up");
    if (this.behaviour.failStart) {
      this.exit({ exitCode: 1, signal: null, requested: false, stderrTail: "boom at start" });
      throw new EvalkitError("KERNEL_START_FAILED", "python exited during start-up (exit code 1)", {
        exitCode: 1,
      });
    }
    this.isStarted = true;
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (!this.isAlive) throw new EvalkitError("KERNEL_CLOSED", "kernel is not running");
    this.log.push(code);
    const outputs: KernelOutput[] = [];
    // Like the kernel contract: a caller that keeps the outputs itself gets none in the outcome.
    const isRetaining = options.retainOutputs !== false;
    const print = (text: string) => {
      const output: KernelOutput = { type: "stream", name: "stdout", text };
      if (isRetaining) outputs.push(output);
      options.onOutput?.(output);
    };
    const ok = (): ExecuteOutcome => ({
      status: "ok",
      cancelled: false,
      executionCount: this.log.length,
      outputs,
      durationMs: 1,
    });
    const interrupted = (): ExecuteOutcome => ({
      status: "error",
      cancelled: true,
      executionCount: this.log.length,
      outputs,
      error: { ename: "KeyboardInterrupt", evalue: "", traceback: [] },
      durationMs: 1,
    });
    const [op = "", ...rest] = code.split(" ");
    const arg = rest.join(" ");
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      // The kernel contract: an aborted signal interrupts, and `interruptGraceMs` later the kernel kills the cell.
      let escalation: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        this.interrupt();
        escalation ??= setTimeout(() => {
          if (this.running === running) this.killAfterInterrupt();
        }, options.interruptGraceMs ?? 5000);
      };
      const detach = () => {
        clearTimeout(escalation);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const running = {
        interrupt: () => {},
        die: (exit: KernelExit) => {
          detach();
          reject(new EvalkitError("KERNEL_DIED", "kernel died while the cell was running", { ...exit }));
        },
      };
      this.running = running;
      const finish = (outcome: ExecuteOutcome) => {
        detach();
        this.running = undefined;
        resolve(outcome);
      };
      if (options.signal?.aborted) setImmediate(onAbort);
      else options.signal?.addEventListener("abort", onAbort, { once: true });
      switch (op) {
        case "set": {
          const [name = "", value = ""] = rest;
          this.state.set(name, value);
          setImmediate(() => finish(ok()));
          return;
        }
        case "get":
          print(this.state.get(arg) ?? "<unset>");
          setImmediate(() => finish(ok()));
          return;
        case "pid":
          print(String(this.id));
          setImmediate(() => finish(ok()));
          return;
        case "fail":
          setImmediate(() =>
            finish({
              ...ok(),
              status: "error",
              error: { ename: "ValueError", evalue: "bad", traceback: [] },
            }),
          );
          return;
        case "sleep": {
          const timer = setTimeout(() => finish(ok()), Number(arg));
          this.running.interrupt = () => {
            clearTimeout(timer);
            setImmediate(() => finish(interrupted()));
          };
          return;
        }
        case "hang":
          return;
        case "spam-then-die": {
          const chunk = "x".repeat(64 * 1024);
          for (let i = 0; i < Number(arg); i++) print(chunk);
          setImmediate(() => this.exit({ exitCode: 9, signal: null, requested: false, stderrTail: "" }));
          return;
        }
        case "die":
          setImmediate(() =>
            this.exit({ exitCode: Number(arg), signal: null, requested: false, stderrTail: "" }),
          );
          return;
        case "die-signal":
          setImmediate(() =>
            this.exit({
              exitCode: null,
              signal: arg as NodeJS.Signals,
              requested: false,
              stderrTail: "Fatal Python error: oops\n",
            }),
          );
          return;
        case "call": {
          const [method = "", ...json] = rest;
          const controller = new AbortController();
          const params = json.length > 0 ? (JSON.parse(json.join(" ")) as Record<string, unknown>) : {};
          const handler = options.onCall;
          if (!handler) {
            print("error: no handler");
            setImmediate(() => finish(ok()));
            return;
          }
          let isInterrupted = false;
          handler({ method, params, signal: controller.signal }).then(
            (value) => {
              if (isInterrupted) return;
              print(JSON.stringify(value));
              finish(ok());
            },
            (err: Error) => {
              if (isInterrupted) return;
              print(`error: ${err.message}`);
              finish(ok());
            },
          );
          // Like the runner: KeyboardInterrupt in the waiting thread, the call's signal aborted.
          this.running.interrupt = () => {
            isInterrupted = true;
            controller.abort(new Error("interrupted"));
            setImmediate(() => finish(interrupted()));
          };
          return;
        }
        default:
          setImmediate(() => finish(ok()));
      }
    });
  }

  interrupt(): void {
    this.interrupts += 1;
    this.running?.interrupt();
  }

  async shutdown(): Promise<KernelExit | undefined> {
    if (!this.exitInfo) this.exit({ exitCode: null, signal: "SIGTERM", requested: true, stderrTail: "" });
    return this.exitInfo;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    if (this.exitInfo) {
      listener(this.exitInfo);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Simulates PythonKernel's own escalation: it killed the process and rejects with `details.killed`. */
  killAfterInterrupt(): void {
    const running = this.running;
    this.running = undefined;
    this.exitInfo = { exitCode: null, signal: "SIGKILL", requested: true, stderrTail: "" };
    running?.die({ ...this.exitInfo, killed: true } as KernelExit);
    for (const listener of [...this.listeners]) listener(this.exitInfo);
    this.listeners.clear();
  }

  /** Simulates the process ending (from outside, or by request). */
  exit(exit: KernelExit): void {
    if (this.exitInfo) return;
    this.exitInfo = exit;
    const running = this.running;
    this.running = undefined;
    running?.die(exit);
    for (const listener of [...this.listeners]) listener(exit);
    this.listeners.clear();
  }
}

/** A factory that records every kernel it made; `failStarts` kernels fail to start first. */
export function createFakeFactory(
  options: { failStarts?: number; alwaysFailStart?: boolean; startDelayMs?: number } = {},
) {
  const kernels: FakeKernel[] = [];
  let failuresLeft = options.failStarts ?? 0;
  const factory = (spec: KernelSpec): Kernel => {
    const shouldFail = options.alwaysFailStart === true || failuresLeft > 0;
    if (failuresLeft > 0) failuresLeft -= 1;
    const kernel = new FakeKernel(spec, { failStart: shouldFail, startDelayMs: options.startDelayMs ?? 0 });
    kernels.push(kernel);
    return kernel;
  };
  return { factory, kernels };
}

/** A resolver that never touches the real runtime. */
export const fakeResolver = async () => ({ executable: "/fake/python3", env: {} });

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The stdout text of an outcome. */
export function stdoutOf(outcome: { outputs: KernelOutput[] }): string {
  return outcome.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
}

/** Makes SessionManagers on fake kernels; `disposeAll` (for afterEach) disposes every one it made. */
export function createFakeManagers() {
  const managers: SessionManager[] = [];
  return {
    createManager(options: SessionManagerOptions = {}) {
      const fake = createFakeFactory();
      const manager = new SessionManager({
        createKernel: fake.factory,
        resolveInterpreter: fakeResolver,
        ...options,
      });
      managers.push(manager);
      return { manager, kernels: fake.kernels };
    },
    /** Disposes a manager built by hand (custom factory) with the others. */
    track(manager: SessionManager): SessionManager {
      managers.push(manager);
      return manager;
    },
    async disposeAll(): Promise<void> {
      await Promise.all(managers.splice(0).map((m) => m.dispose()));
    },
  };
}
