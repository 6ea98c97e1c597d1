// Tab completion in a JS kernel: each request waits for the runner's reply or gives up after its timeout, and
// holds the host open while it waits.
import { ReplyWaiters } from "../reply-waiters.js";
import type { JsKernelProcess } from "./js-kernel-process.js";

/** Tab completion: replace `code.slice(start, cursor)` with one of `matches`. */
export interface Completion {
  start: number;
  matches: string[];
}

/** The completion requests of one kernel. */
export class JsCompletions {
  private readonly waiters = new ReplyWaiters<Completion>();
  private serial = 0;

  constructor(private readonly name: string) {}

  /** Asks `proc`; `isIdle` says no cell runs, so the last answer may let the host go again. */
  request(
    proc: JsKernelProcess,
    code: string,
    cursor: number,
    timeoutMs: number,
    isIdle: () => boolean,
  ): Promise<Completion> {
    const none = { start: cursor, matches: [] };
    const id = `${this.name}-t${++this.serial}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(none), timeoutMs);
      timer.unref();
      const settle = (reply: Completion) => {
        clearTimeout(timer);
        this.waiters.forget(id);
        if (isIdle() && this.waiters.size === 0) proc.setRef(false);
        resolve(reply);
      };
      this.waiters.wait(id, settle);
      // An idle kernel does not keep the host alive; a pending answer must, or a script's `await` ends with it.
      proc.setRef(true);
      proc.send({ type: "complete", id, code, cursor });
    });
  }

  answer(id: string, reply: Completion): void {
    this.waiters.answer(id, reply);
  }

  /** The process is gone: every request gets no matches. */
  answerAll(): void {
    this.waiters.answerAll(() => ({ start: 0, matches: [] }));
  }
}
