// A kernel's cells run one at a time, in order, and a failed cell does not hold up the next.

import { describe, expect, it } from "vitest";
import { CellQueue } from "../../src/kernel/cell-queue.js";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("CellQueue", () => {
  it("starts a cell only once the one before it has ended", async () => {
    const queue = new CellQueue();
    const first = deferred<string>();
    const started: string[] = [];
    const a = queue.add(() => {
      started.push("a");
      return first.promise;
    });
    const b = queue.add(async () => {
      started.push("b");
      return "b";
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(["a"]);
    first.resolve("a");
    expect(await a).toBe("a");
    expect(await b).toBe("b");
    expect(started).toEqual(["a", "b"]);
  });

  it("runs the next cell after one that failed, and hands the failure to its own caller", async () => {
    const queue = new CellQueue();
    const failing = queue.add(() => Promise.reject(new Error("boom")));
    const next = queue.add(async () => 42);
    await expect(failing).rejects.toThrow("boom");
    expect(await next).toBe(42);
  });
});
