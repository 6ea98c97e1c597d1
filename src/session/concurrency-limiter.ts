// A small FIFO semaphore whose waiters can give up through an AbortSignal (used to bound bridge handlers).

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiters: Array<{ grant: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be an integer >= 1`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Acquirers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A release function when a slot is free right now, else undefined (no waiting, no promise). */
  tryAcquire(): (() => void) | undefined {
    if (this.active >= this.limit) return undefined;
    this.active += 1;
    return this.createRelease();
  }

  /** Resolves with a release function once a slot is free; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve(this.createRelease());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.createRelease());
        },
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private createRelease(): () => void {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so `active` only drops when nobody waits.
      if (next) next.grant();
      else this.active -= 1;
    };
  }
}
