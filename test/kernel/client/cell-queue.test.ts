// A kernel's cells run one at a time, in order, and a failed cell does not hold up the next.

import { describe, expect, it } from "vitest";
import { CellQueue } from "../../../src/kernel/client/cell-queue.js";

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

  it("starts a cell at once when the queue is idle, and so does a caller that adds the next one when it settles", async () => {
    const queue = new CellQueue();
    for (let n = 1; n <= 3; n++) {
      let ran = false;
      const cell = queue.add(async () => {
        ran = true;
        return n;
      });
      // Nothing was pending (the cell before settled): this one ran inside add(), before this line.
      expect(ran).toBe(true);
      expect(await cell).toBe(n);
    }
  });

  it("hands a cell that throws before it returns a promise to its caller as a rejection", async () => {
    const queue = new CellQueue();
    const thrown = queue.add((): Promise<number> => {
      throw new Error("sync boom");
    });
    await expect(thrown).rejects.toThrow("sync boom");
    expect(await queue.add(async () => 7)).toBe(7);
  });
});
