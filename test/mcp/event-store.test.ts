// The event store replays what a stream missed after a Last-Event-ID, within its memory budget.
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BoundedEventStore } from "../../src/mcp/event-store.js";

function progress(n: number, text = ""): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: 1, progress: n, message: text },
  };
}

/** What a replayed message was: a progress value, or "result". */
function summarize(message: JSONRPCMessage): number | string {
  if ("result" in message) return "result";
  return (message as { params?: { progress?: number } }).params?.progress ?? "?";
}

async function replay(store: BoundedEventStore, lastEventId: string) {
  const sent: { id: string; message: JSONRPCMessage }[] = [];
  const streamId = await store.replayEventsAfter(lastEventId, {
    send: async (id, message) => {
      sent.push({ id, message });
    },
  });
  return { streamId, sent };
}

describe("BoundedEventStore", () => {
  it("replays the events of the same stream after the given id, in order, and skips priming events", async () => {
    const store = new BoundedEventStore();
    const priming = await store.storeEvent("stream-a", {} as JSONRPCMessage);
    const first = await store.storeEvent("stream-a", progress(1));
    await store.storeEvent("stream-b", progress(99));
    await store.storeEvent("stream-a", progress(2));
    await store.storeEvent("stream-a", { jsonrpc: "2.0", id: 7, result: { content: [] } });
    const fromPriming = await replay(store, priming);
    expect(fromPriming.streamId).toBe("stream-a");
    expect(fromPriming.sent.map(({ message }) => summarize(message))).toEqual([1, 2, "result"]);
    const fromFirst = await replay(store, first);
    expect(fromFirst.sent).toHaveLength(2);
    expect(await store.getStreamIdForEventId(first)).toBe("stream-a");
  });

  it("keeps within its budget by dropping the oldest events, never the newest one", async () => {
    const store = new BoundedEventStore(4096);
    const priming = await store.storeEvent("s", {} as JSONRPCMessage);
    for (let n = 1; n <= 100; n += 1) await store.storeEvent("s", progress(n, "x".repeat(200)));
    expect(store.heldBytes).toBeLessThanOrEqual(4096);
    const { sent } = await replay(store, priming);
    expect(sent.length).toBeGreaterThan(5);
    expect(sent.length).toBeLessThan(100);
    expect(sent.at(-1)?.message).toMatchObject({ params: { progress: 100 } });
    const huge = await store.storeEvent("s", progress(101, "y".repeat(10_000)));
    expect(huge).toMatch(/^s\.\d+$/);
    const after = await replay(store, priming);
    expect(after.sent.map(({ message }) => summarize(message))).toEqual([101]);
  });

  it("answers an id it never gave out with no stream, and stores nothing once cleared", async () => {
    const store = new BoundedEventStore();
    expect(await store.getStreamIdForEventId("not-an-id")).toBeUndefined();
    expect((await replay(store, "garbage")).streamId).toBe("");
    const id = await store.storeEvent("s", progress(1));
    store.clear();
    await store.storeEvent("s", progress(2));
    expect(store.heldBytes).toBe(0);
    expect((await replay(store, id)).sent).toEqual([]);
  });
});

describe("BoundedEventStore ages", () => {
  it("drops events older than its maximum age when pruned, keeping the newest", async () => {
    let now = 0;
    const store = new BoundedEventStore(1 << 20, 1000, () => now);
    const priming = await store.storeEvent("s", {} as JSONRPCMessage);
    await store.storeEvent("s", progress(1));
    now = 500;
    await store.storeEvent("s", progress(2));
    now = 1200;
    store.prune();
    expect((await replay(store, priming)).sent.map(({ message }) => summarize(message))).toEqual([2]);
    now = 5000;
    store.prune();
    expect((await replay(store, priming)).sent.map(({ message }) => summarize(message))).toEqual([2]);
    await store.storeEvent("s", progress(3));
    expect((await replay(store, priming)).sent.map(({ message }) => summarize(message))).toEqual([3]);
  });
});
