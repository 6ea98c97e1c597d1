// Requests a kernel client sends its runner that wait for a reply frame of the same id: tab completion (given up
// after a timeout while a cell holds the runner's thread) and is-complete; both answered neutrally at a death.
import type { CompletenessReply, CompletionReply } from "../kernel.js";
import { ReplyWaiters } from "./reply-waiters.js";
import type { RuntimeConnection } from "./runtime-description.js";

/** The pending `complete` and `is_complete` requests of one kernel. */
export class ReplyRequests {
  private readonly completers = new ReplyWaiters<CompletionReply>();
  private readonly completions = new ReplyWaiters<CompletenessReply>();
  private serial = 0;

  constructor(private readonly prefix: string) {}

  /** Asks for completions at `cursor`; no matches after `timeoutMs`. `isIdle`: no cell runs (the host may go). */
  complete(
    connection: RuntimeConnection,
    code: string,
    cursor: number,
    timeoutMs: number,
    isIdle: () => boolean,
  ): Promise<CompletionReply> {
    const id = `${this.prefix}-t${++this.serial}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle({ start: cursor, matches: [] }), timeoutMs);
      timer.unref();
      const settle = (reply: CompletionReply) => {
        clearTimeout(timer);
        this.completers.forget(id);
        if (isIdle() && this.completers.size === 0) connection.setRef(false);
        resolve(reply);
      };
      this.completers.wait(id, settle);
      // An idle kernel does not keep the host alive; a pending answer must, or a script's `await` ends with it.
      connection.setRef(true);
      connection.send({ type: "complete", id, code, cursor });
    });
  }

  /** Asks whether `code` is a whole statement. */
  isComplete(connection: RuntimeConnection, code: string): Promise<CompletenessReply> {
    const id = `${this.prefix}-c${++this.serial}`;
    return new Promise((resolve) => {
      this.completions.wait(id, resolve);
      connection.send({ type: "is_complete", id, code });
    });
  }

  answerComplete(id: string, reply: CompletionReply): void {
    this.completers.answer(id, reply);
  }

  answerIsComplete(id: string, reply: CompletenessReply): void {
    this.completions.answer(id, reply);
  }

  /** No reply will come (the runner is gone): every request gets a neutral answer. */
  answerAll(): void {
    this.completions.answerAll(() => ({ status: "invalid", indent: "" }));
    this.completers.answerAll(() => ({ start: 0, matches: [] }));
  }
}
