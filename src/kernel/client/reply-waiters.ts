// Requests a kernel sent its runner that wait for the reply frame of the same id (tab completion, is-complete).

/** Waiters by request id; each is answered once, by its reply or, when the kernel is gone, a neutral one. */
export class ReplyWaiters<T> {
  private readonly waiting = new Map<string, (reply: T) => void>();

  get size(): number {
    return this.waiting.size;
  }

  wait(id: string, answer: (reply: T) => void): void {
    this.waiting.set(id, answer);
  }

  /** A reply nobody waits for (given up on, or answered already) is dropped. */
  answer(id: string, reply: T): void {
    const waiter = this.waiting.get(id);
    if (waiter === undefined) return;
    this.waiting.delete(id);
    waiter(reply);
  }

  /** Stops waiting for `id`, whose reply is then dropped. */
  forget(id: string): void {
    this.waiting.delete(id);
  }

  /** No reply will come (the runner is gone): every waiter gets a fresh `neutral()`, so none shares an object. */
  answerAll(neutral: () => T): void {
    for (const [id, waiter] of [...this.waiting]) {
      this.waiting.delete(id);
      waiter(neutral());
    }
  }
}
