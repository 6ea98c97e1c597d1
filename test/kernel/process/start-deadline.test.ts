// A kernel's start-up gets the runner's `ready`, or the kernel's own error once the deadline passes.

import { afterEach, describe, expect, it, vi } from "vitest";
import { withStartDeadline } from "../../../src/kernel/process/start-deadline.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("withStartDeadline", () => {
  it("passes `ready` on and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const timeoutError = vi.fn(() => new Error("late"));
    expect(await withStartDeadline(Promise.resolve("ready"), 1000, timeoutError)).toBe("ready");
    expect(vi.getTimerCount()).toBe(0);
    expect(timeoutError).not.toHaveBeenCalled();
  });

  it("rejects with the error built when the deadline passes", async () => {
    vi.useFakeTimers();
    let said = "nothing yet";
    const started = withStartDeadline(new Promise<never>(() => undefined), 1000, () => new Error(said));
    said = "stderr at the deadline";
    const outcome = expect(started).rejects.toThrow("stderr at the deadline");
    await vi.advanceTimersByTimeAsync(1000);
    await outcome;
  });

  it("passes a start-up failure on before the deadline", async () => {
    vi.useFakeTimers();
    await expect(
      withStartDeadline(Promise.reject(new Error("exited")), 1000, () => new Error("late")),
    ).rejects.toThrow("exited");
    expect(vi.getTimerCount()).toBe(0);
  });
});
