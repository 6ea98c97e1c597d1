// Resumable SSE streams for MCP over HTTP: the messages sent on each stream, kept within a memory budget.
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Bytes of messages one MCP session's streams keep for replay (default of `--http`). */
export const DEFAULT_EVENT_BUDGET_BYTES = 4 * 1024 * 1024;
/** How long an event stays replayable: a client that reconnects later starts over. */
export const DEFAULT_EVENT_MAX_AGE_MS = 10 * 60 * 1000;

interface StoredEvent {
  readonly streamId: StreamId;
  readonly seq: number;
  /** Undefined for a priming event (a cursor the client holds, nothing to replay). */
  readonly message: JSONRPCMessage | undefined;
  /** What the event counts against the budget: its text plus a fixed overhead (priming events count too). */
  readonly cost: number;
  readonly storedAt: number;
}

const EVENT_OVERHEAD_BYTES = 64;

/**
 * One MCP session's event store. Event ids are `<streamId>.<seq>` (the SDK's stream ids are random UUIDs), so
 * the stream of any id is known even after its event was dropped. When the stored messages pass the budget, the
 * oldest are dropped first, whatever stream they belong to, never the one just stored, and events older than
 * `maxAgeMs` go too: memory stays bounded (and an idle session's store empties), and a client that reconnects
 * late gets what is still kept.
 */
export class BoundedEventStore implements EventStore {
  private readonly events: (StoredEvent | undefined)[] = [];
  private head = 0;
  private bytes = 0;
  private seq = 0;
  private isClosed = false;

  constructor(
    private readonly budgetBytes: number = DEFAULT_EVENT_BUDGET_BYTES,
    private readonly maxAgeMs: number = DEFAULT_EVENT_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes of messages held now (for tests and metrics). */
  get heldBytes(): number {
    return this.bytes;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.seq += 1;
    const eventId = `${streamId}.${this.seq}`;
    if (this.isClosed) return eventId;
    // The SDK's priming event is `{}`: a cursor, never replayed (a client would fail to parse it).
    const isPriming = Object.keys(message).length === 0;
    const cost = (isPriming ? 0 : JSON.stringify(message).length) + EVENT_OVERHEAD_BYTES;
    const storedAt = this.now();
    this.events.push({ streamId, seq: this.seq, message: isPriming ? undefined : message, cost, storedAt });
    this.bytes += cost;
    this.evict();
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return parseEventId(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const cursor = parseEventId(lastEventId);
    if (cursor === undefined) return "";
    for (let index = this.head; index < this.events.length; index += 1) {
      const event = this.events[index];
      if (event === undefined || event.streamId !== cursor.streamId || event.seq <= cursor.seq) continue;
      if (event.message !== undefined) await send(`${event.streamId}.${event.seq}`, event.message);
    }
    return cursor.streamId;
  }

  /** Drops everything (the session ended); later events are not kept. */
  clear(): void {
    this.isClosed = true;
    this.events.length = 0;
    this.head = 0;
    this.bytes = 0;
  }

  /** Drops what is too old or over the budget now (called now and then, so an idle session's store empties). */
  prune(): void {
    this.evict();
  }

  private evict(): void {
    const tooOld = this.now() - this.maxAgeMs;
    while (this.events.length - this.head > 1) {
      const oldest = this.events[this.head];
      if (oldest === undefined || (this.bytes <= this.budgetBytes && oldest.storedAt >= tooOld)) break;
      this.events[this.head] = undefined;
      this.head += 1;
      this.bytes -= oldest.cost;
    }
    // Compact now and then instead of shifting on every drop.
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events.splice(0, this.head);
      this.head = 0;
    }
  }
}

function parseEventId(eventId: EventId): { streamId: StreamId; seq: number } | undefined {
  const dot = eventId.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  if (!Number.isSafeInteger(seq) || seq <= 0) return undefined;
  return { streamId: eventId.slice(0, dot), seq };
}
