// The runtime process behind a kernel client: launched (again, for runtimes that restart), its handshake, and its
// exit, which the client hears first and exit listeners after. Events of a replaced process are ignored.
import type { KernelExit } from "../kernel.js";
import type { ConnectionEvents, RuntimeConnection, RuntimeDescription } from "./runtime-description.js";

/** The current process of one kernel. */
export class RuntimeSlot {
  connection: RuntimeConnection | undefined;
  /** The start under way or done (undefined once its process exited). */
  starting: Promise<void> | undefined;
  /** Settles once the starting process exists (spawned or failed), before its `ready`. */
  launched: Promise<void> = Promise.resolve();
  /** True between a successful handshake and the process's exit. */
  isReady = false;
  lastExit: KernelExit | undefined;
  private readonly exitListeners = new Set<(exit: KernelExit) => void>();

  constructor(
    private readonly runtime: RuntimeDescription,
    /** What the current process says; `onExit` comes before the listeners hear of the exit. */
    private readonly events: ConnectionEvents,
  ) {}

  /** Launches a process and waits for its `ready`; one that fails its handshake is stopped. */
  start(): Promise<void> {
    this.starting = this.spawn();
    return this.starting;
  }

  onExit(listener: (exit: KernelExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private async spawn(): Promise<void> {
    let connection: RuntimeConnection | undefined;
    const launching = this.runtime.launch({
      onFrame: (frame, isPlain) => {
        if (this.connection === connection) this.events.onFrame(frame, isPlain);
      },
      onProtocolError: (err) => {
        if (this.connection !== connection) return;
        void connection?.stop(false);
        this.events.onProtocolError(err);
      },
      onExit: (exit) => {
        if (this.connection === connection) this.exited(exit);
      },
    });
    this.launched = launching.then(
      () => undefined,
      () => undefined,
    );
    connection = await launching;
    this.connection = connection;
    try {
      const ready = await connection.handshake(this.runtime.startTimeoutMs);
      this.runtime.onReady?.(ready);
      this.isReady = this.connection === connection && connection.isAlive;
    } catch (err) {
      await connection.stop(false);
      throw err;
    }
    connection.setRef(false);
  }

  private exited(exit: KernelExit): void {
    this.starting = undefined;
    this.isReady = false;
    this.lastExit = exit;
    this.runtime.onExit?.(exit);
    this.events.onExit(exit);
    for (const listener of [...this.exitListeners]) listener(exit);
  }
}
