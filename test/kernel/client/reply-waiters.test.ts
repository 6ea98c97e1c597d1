// Requests waiting for the runner's reply get it once, by id; when the kernel is gone each gets its own neutral reply.

import { describe, expect, it, vi } from "vitest";
import { ReplyWaiters } from "../../../src/kernel/client/reply-waiters.js";

describe("ReplyWaiters", () => {
  it("answers the waiter of the reply's id, once", () => {
    const waiters = new ReplyWaiters<number>();
    const a = vi.fn();
    const b = vi.fn();
    waiters.wait("a", a);
    waiters.wait("b", b);
    waiters.answer("b", 2);
    waiters.answer("b", 3);
    expect(b).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledWith(2);
    expect(a).not.toHaveBeenCalled();
    expect(waiters.size).toBe(1);
  });

  it("drops a reply for a request it stopped waiting for", () => {
    const waiters = new ReplyWaiters<number>();
    const a = vi.fn();
    waiters.wait("a", a);
    waiters.forget("a");
    waiters.answer("a", 1);
    expect(a).not.toHaveBeenCalled();
    expect(waiters.size).toBe(0);
  });

  it("gives every waiter a fresh neutral reply, each seeing itself already removed", () => {
    const waiters = new ReplyWaiters<{ matches: string[] }>();
    const seen: Array<{ reply: { matches: string[] }; size: number }> = [];
    for (const id of ["a", "b"]) waiters.wait(id, (reply) => seen.push({ reply, size: waiters.size }));
    waiters.answerAll(() => ({ matches: [] }));
    expect(seen.map((s) => s.size)).toEqual([1, 0]);
    expect(seen[0]?.reply).not.toBe(seen[1]?.reply);
    expect(waiters.size).toBe(0);
  });
});
