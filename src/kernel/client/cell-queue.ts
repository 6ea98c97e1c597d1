// Runs a kernel's cells one at a time, in the order they were asked for.

const ignore = (): undefined => undefined;

/** The cells of one kernel: each starts once the one before it has ended. */
export class CellQueue {
  private last: Promise<unknown> = Promise.resolve();
  /** Cells added whose promise has not settled yet. */
  private pending = 0;

  /**
   * Runs `run` after every cell added before it, however those ended: a failed cell does not stop the next. With
   * nothing pending it starts at once, in the caller's turn: the request leaves before the caller's own set-up that
   * follows `add`, which then overlaps the kernel's work instead of delaying it.
   */
  add<T>(run: () => Promise<T>): Promise<T> {
    const next = this.pending === 0 ? startNow(run) : this.last.then(run);
    this.pending++;
    const settled = () => {
      this.pending--;
    };
    // Registered before the caller can await `next`: a caller that adds its next cell as soon as this one
    // settles finds the queue idle.
    next.then(settled, settled);
    this.last = next.catch(ignore);
    return next;
  }
}

function startNow<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (err) {
    return Promise.reject(err);
  }
}
