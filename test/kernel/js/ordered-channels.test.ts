// The three-channel merger treats markers as untrusted: the runner's count up by one on each pipe, so a forged one
// is ignored; text after it stays in its epoch, nothing waits on it, and the host never holds more than its bound.
import { describe, expect, it } from "vitest";
import { type ChannelItem, OrderedChannels } from "../../../src/kernel/js/ordered-channels.js";

const NONCE = "0123456789abcdef";
const marker = (n: number) => Buffer.from(`\x1b]evalkit-sync;${NONCE};${n}\x07`, "latin1");

function collect(maxHeld?: number) {
  const items: ChannelItem[] = [];
  const merger = new OrderedChannels(NONCE, (item) => items.push(item), maxHeld);
  const texts = () =>
    items.map((item) => (item.kind === "text" ? item.text : `<${item.frame.type}>`)).join("");
  return { merger, items, texts };
}

/** The runner's own sync point n: the marker on both pipes and the frame on fd 3. */
function syncPoint(merger: OrderedChannels, n: number, frame: Record<string, unknown> = { type: "sync" }) {
  merger.stdout(marker(n));
  merger.stderr(marker(n));
  merger.frame({ ...frame, sync: n });
}

describe("OrderedChannels and forged markers", () => {
  it("keeps text printed after a forged marker in the epoch it was written in, without holding it", () => {
    const { merger, texts } = collect();
    syncPoint(merger, 1);
    merger.stdout(Buffer.from("before "));
    merger.stdout(marker(999_999_999));
    merger.stdout(Buffer.from("after "));
    expect(texts()).toBe("before after ");
    syncPoint(merger, 2, { type: "done" });
    expect(texts()).toBe("before after <done>");
    expect(merger.heldBytes).toBe(0);
  });

  it("never lets the cell's done overtake its text when fd 3 is read before the pipe's real marker", () => {
    // The forged high marker used to count as the pipe having reached every epoch: `done` went out at once and
    // the text after the forgery came after it (the cell lost its own output).
    const { merger, texts } = collect();
    syncPoint(merger, 1);
    merger.stdout(marker(999_999_999));
    merger.stdout(Buffer.from("after "));
    merger.stderr(marker(2));
    merger.frame({ type: "done", sync: 2 });
    merger.stdout(marker(2));
    expect(texts()).toBe("after <done>");
  });

  it("ignores a forged marker of a number the runner has already passed", () => {
    const { merger, texts } = collect();
    syncPoint(merger, 1);
    syncPoint(merger, 2, { type: "display" });
    merger.stdout(marker(1));
    merger.stdout(Buffer.from("late "));
    expect(texts()).toBe("<display>late ");
  });

  it("never holds more than its bound after a forged marker, and delivers everything in order", () => {
    const { merger, texts } = collect(64 * 1024);
    syncPoint(merger, 1);
    merger.stdout(marker(999_999_999));
    let maxHeld = 0;
    let expected = "";
    for (let i = 0; i < 1000; i++) {
      const line = `${i} ${"x".repeat(1000)}\n`;
      expected += line;
      merger.stdout(Buffer.from(line));
      maxHeld = Math.max(maxHeld, merger.heldBytes);
    }
    expect(maxHeld).toBeLessThanOrEqual(64 * 1024);
    expect(texts()).toBe(expected);
  });

  it("keeps the order of real epochs across the pipes and the frames", () => {
    const { merger, texts } = collect();
    syncPoint(merger, 1, { type: "display" });
    merger.stdout(Buffer.from("out "));
    // The stderr marker for epoch 2 arrives before fd 3's: stderr text waits for the frame channel.
    merger.stdout(marker(2));
    merger.stderr(marker(2));
    merger.stderr(Buffer.from("err "));
    expect(texts()).toBe("<display>out ");
    merger.frame({ type: "sync", sync: 2 });
    expect(texts()).toBe("<display>out err ");
  });

  it("keeps the order of later epochs after a forged marker and a release past the bound", () => {
    const { merger, texts } = collect(1024);
    syncPoint(merger, 1);
    merger.stdout(marker(999_999_999));
    merger.stdout(Buffer.from("x".repeat(2000)));
    syncPoint(merger, 2, { type: "done" });
    const before = texts().length;
    // A later cell: stderr text of epoch 4 must wait for the frame of epoch 3 that precedes it.
    syncPoint(merger, 3, { type: "display" });
    merger.stdout(marker(4));
    merger.stderr(marker(4));
    merger.stderr(Buffer.from("err"));
    expect(texts().slice(before)).toBe("<display>");
    merger.frame({ type: "sync", sync: 4 });
    expect(texts().slice(before)).toBe("<display>err");
  });
});
