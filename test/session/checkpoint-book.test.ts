// The checkpoint book's rules on a scripted kernel: undo levels, the budget's order of eviction, crash recovery.
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import type { CheckpointMemory, Kernel, KernelCheckpoints } from "../../src/kernel/kernel.js";
import { type CheckpointOptions, checkpointBookOf } from "../../src/session/checkpoint-book.js";

/** A kernel whose checkpoints are entries in a map: names, the memory each holds, and what was restored. */
function scriptedKernel(bytes: (name: string) => number = () => 1024) {
  const held = new Map<string, number>();
  const restored: (string | null)[] = [];
  let restorable = false;
  const checkpoints: KernelCheckpoints = {
    get isRestorable() {
      return restorable;
    },
    async take(name) {
      if (held.has(name)) throw new Error(`duplicate ${name}`);
      held.set(name, bytes(name));
      return { pid: 100 + held.size, limits: [] };
    },
    async restore(name) {
      if (name !== null && !held.has(name)) throw new Error(`missing ${name}`);
      restored.push(name);
      restorable = false;
    },
    async drop(name) {
      held.delete(name);
    },
    async describe(names): Promise<CheckpointMemory[]> {
      return [
        ...names.map((name) =>
          held.has(name) ? { name, privateBytes: held.get(name) ?? 0 } : { name, missing: true },
        ),
        { name: null, privateBytes: 10 },
      ];
    },
  };
  const kernel = { checkpoints } as unknown as Kernel;
  return { kernel, held, restored, crash: () => (restorable = true) };
}

const book = (kernel: Kernel, options: CheckpointOptions) => checkpointBookOf(kernel, options);

describe("the checkpoint book", () => {
  it("keeps only `undo` automatic checkpoints and undoes to the newest, using it up", async () => {
    const { kernel, held, restored } = scriptedKernel();
    const b = book(kernel, { undo: 2 });
    for (let i = 0; i < 4; i++) await b.takeAutomatic();
    expect([...held.keys()]).toEqual(["undo-3", "undo-4"]);
    expect(await b.undo()).toBe("undo-4");
    expect(await b.undo()).toBe("undo-3");
    expect(restored).toEqual(["undo-4", "undo-3"]);
    const none = await b.undo().catch((err: unknown) => err);
    expect(isEvalkitError(none, "CHECKPOINT_NOT_FOUND")).toBe(true);
  });

  it("drops automatic checkpoints before named ones and refuses a named one past the count", async () => {
    const { kernel, held } = scriptedKernel();
    const b = book(kernel, { undo: 5, maxCount: 3 });
    await b.take("a");
    await b.takeAutomatic();
    await b.takeAutomatic();
    const notices: string[] = [];
    await b.take("b", notices);
    expect([...held.keys()]).toEqual(["a", "undo-2", "b"]);
    expect(notices).toEqual(['automatic checkpoint "undo-1" dropped: more than 3 checkpoints']);
    await b.take("c");
    const refused = await b.take("d").catch((err: unknown) => err);
    expect(isEvalkitError(refused, "CHECKPOINT_FAILED")).toBe(true);
    expect([...held.keys()]).toEqual(["a", "b", "c"]);
  });

  it("evicts by bytes, oldest automatic first, and says how much they held", async () => {
    // A fresh checkpoint holds almost nothing; it grows as the live interpreter changes the pages it shares.
    const { kernel, held } = scriptedKernel(() => 0);
    const b = book(kernel, { undo: 3, maxBytes: 1000 });
    await b.take("named");
    await b.takeAutomatic();
    await b.takeAutomatic();
    held.set("named", 300);
    held.set("undo-1", 600);
    held.set("undo-2", 600);
    const notices: string[] = [];
    await b.take("later", notices);
    // 300 + 600 + 600 > 1000: the older automatic one goes, and that is enough.
    expect([...held.keys()]).toEqual(["named", "undo-2", "later"]);
    expect(notices).toEqual(['automatic checkpoint "undo-1" dropped: checkpoints hold 1 kB, more than 1 kB']);
  });

  it("replaces a checkpoint taken under a name already in use", async () => {
    const { kernel, held } = scriptedKernel();
    const b = book(kernel, {});
    await b.take("x");
    const notices: string[] = [];
    await b.take("x", notices);
    expect([...held.keys()]).toEqual(["x"]);
    expect(notices[0]).toContain("replaced");
  });

  it("after a crash starts a fresh interpreter and names the checkpoints, or restores the newest", async () => {
    const plain = scriptedKernel();
    const b = book(plain.kernel, {});
    await b.take("loaded");
    plain.crash();
    const notices = await b.recover();
    expect(plain.restored).toEqual([null]);
    expect(notices[0]).toContain('{"restore": "loaded"}');
    const auto = scriptedKernel();
    const c = book(auto.kernel, { restoreOnCrash: true });
    await c.take("first");
    await c.take("second");
    auto.crash();
    expect((await c.recover())[0]).toContain('"second" was restored automatically');
    expect(auto.restored).toEqual(["second"]);
  });

  it("forgets checkpoints that vanished from outside when it reports", async () => {
    const { kernel, held } = scriptedKernel();
    const b = book(kernel, {});
    await b.take("a");
    await b.take("b");
    held.delete("a");
    const report = await b.report();
    expect(report.checkpoints.map((c) => c.name)).toEqual(["b"]);
    expect(report.rootPrivateBytes).toBe(10);
  });

  it("refuses a kernel without checkpoints with CHECKPOINTS_UNSUPPORTED", () => {
    expect(() => checkpointBookOf({} as Kernel, {})).toThrow(/checkpoints need a local Python kernel/);
  });
});
