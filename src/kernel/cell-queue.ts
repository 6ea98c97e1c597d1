// Runs a kernel's cells one at a time, in the order they were asked for.

const ignore = (): undefined => undefined;

/** The cells of one kernel: each starts once the one before it has ended. */
export class CellQueue {
  private last: Promise<unknown> = Promise.resolve();

  /** Runs `run` after every cell added before it, however those ended: a failed cell does not stop the next. */
  add<T>(run: () => Promise<T>): Promise<T> {
    const next = this.last.then(run);
    this.last = next.catch(ignore);
    return next;
  }
}
