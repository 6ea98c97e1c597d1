// Puts the JS kernel's three channels back in the order the runner wrote them: frames (fd 3) and the raw
// stdout/stderr pipes (fd 1, fd 2) that the kernel's child processes share. See docs/protocol.md, "sync".
import { StringDecoder } from "node:string_decoder";

/** What the host gets from the kernel, in order. */
export type ChannelItem =
  | { kind: "frame"; frame: Record<string, unknown> }
  | { kind: "text"; name: "stdout" | "stderr"; text: string };

/**
 * Most bytes held back waiting for an epoch (the retained stream budget of a cell). A cell can forge a marker for
 * an epoch that never comes (its nonce is in its own process): past this the host stops waiting and delivers.
 */
export const DEFAULT_MAX_HELD_BYTES = 1024 * 1024;

/** What a held frame counts when its line's size is not known. */
const FRAME_COST_BYTES = 256;

/** Stream pieces stay under 32 KiB, like the Python runner's stream frames. */
const MAX_PIECE_BYTES = 32 * 1024 - 4;
const EMPTY = Buffer.alloc(0);

/** The marker the runner writes on fd 1 and fd 2 at each sync point: ESC ] evalkit-sync;<nonce>;<n> BEL. */
export function markerPrefix(nonce: string): Buffer {
  return Buffer.from(`\x1b]evalkit-sync;${nonce};`, "latin1");
}

/** Splits one pipe's bytes into text and sync markers; a marker split across reads is held back. */
class PipeScanner {
  private carry: Buffer = EMPTY;
  private readonly decoder = new StringDecoder("utf8");
  private readonly longestMarker: number;

  constructor(
    private readonly prefix: Buffer,
    private readonly onText: (text: string) => void,
    private readonly onMarker: (n: number) => void,
  ) {
    this.longestMarker = prefix.length + 21;
  }

  push(chunk: Buffer): void {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = EMPTY;
    for (;;) {
      const at = data.indexOf(this.prefix);
      if (at === -1) break;
      const end = data.indexOf(7, at + this.prefix.length);
      if (end === -1 && data.length - at < this.longestMarker) {
        this.text(data.subarray(0, at));
        this.carry = Buffer.from(data.subarray(at));
        return;
      }
      const serial = end === -1 ? Number.NaN : Number(data.toString("latin1", at + this.prefix.length, end));
      if (!Number.isSafeInteger(serial) || end - at > this.longestMarker) {
        // Looked like a marker but is not one: it is text like any other.
        this.text(data.subarray(0, at + 1));
        data = data.subarray(at + 1);
        continue;
      }
      this.text(data.subarray(0, at));
      this.onMarker(serial);
      data = data.subarray(end + 1);
    }
    const keep = this.partialPrefixAtEnd(data);
    this.text(data.subarray(0, data.length - keep));
    if (keep > 0) this.carry = Buffer.from(data.subarray(data.length - keep));
  }

  /** Everything left, at the end of the stream. */
  flush(): void {
    this.text(this.carry);
    this.carry = EMPTY;
    const rest = this.decoder.end();
    if (rest) this.onText(rest);
  }

  private partialPrefixAtEnd(data: Buffer): number {
    const lastEsc = data.lastIndexOf(0x1b);
    if (lastEsc === -1 || data.length - lastEsc >= this.prefix.length) return 0;
    const tail = data.subarray(lastEsc);
    return this.prefix.subarray(0, tail.length).equals(tail) ? tail.length : 0;
  }

  private text(bytes: Buffer): void {
    for (let start = 0; start < bytes.length; start += MAX_PIECE_BYTES) {
      const text = this.decoder.write(bytes.subarray(start, start + MAX_PIECE_BYTES));
      if (text) this.onText(text);
    }
  }
}

interface HeldItem {
  epoch: number;
  item: ChannelItem;
  /** 0 frames, 1 stdout, 2 stderr. */
  source: number;
  bytes: number;
}

/**
 * The runner numbers sync points 1, 2, 3...; each is written to all three channels, and between two of them
 * only one channel carries the runner's own writes. Everything after sync point n on any channel belongs to
 * epoch n. Items of an epoch that every channel has reached are delivered as they arrive; later ones wait.
 *
 * Markers are not trusted: cell code shares the runner's process and can write one. The runner's markers count up
 * by one on each pipe, so only the next number moves a pipe on; any other is a forgery and is ignored. Whatever
 * happens, no more than `maxHeldBytes` wait: past that everything held is delivered in epoch order and ordering
 * gives way to arrival order (nothing is lost, the host stays bounded).
 */
export class OrderedChannels {
  private epoch = 0;
  private readonly seen = [0, 0, 0];
  private held: HeldItem[] = [];
  private heldBytesNow = 0;
  private readonly pipes: [PipeScanner, PipeScanner];

  constructor(
    nonce: string,
    private readonly deliver: (item: ChannelItem) => void,
    private readonly maxHeldBytes = DEFAULT_MAX_HELD_BYTES,
  ) {
    const prefix = markerPrefix(nonce);
    this.pipes = [
      new PipeScanner(
        prefix,
        (text) => this.put(this.seen[1] ?? 0, { kind: "text", name: "stdout", text }, 1, text.length),
        (n) => this.reach(1, n),
      ),
      new PipeScanner(
        prefix,
        (text) => this.put(this.seen[2] ?? 0, { kind: "text", name: "stderr", text }, 2, text.length),
        (n) => this.reach(2, n),
      ),
    ];
  }

  stdout(chunk: Buffer): void {
    this.pipes[0].push(chunk);
  }

  stderr(chunk: Buffer): void {
    this.pipes[1].push(chunk);
  }

  /** One frame from fd 3; `bytes` is its line's length (what holding it costs). */
  frame(frame: Record<string, unknown>, bytes = FRAME_COST_BYTES): void {
    const sync = typeof frame.sync === "number" ? frame.sync : (this.seen[0] ?? 0);
    if (sync > (this.seen[0] ?? 0)) this.seen[0] = sync;
    if (frame.type !== "sync") this.put(sync, { kind: "frame", frame }, 0, bytes);
    this.advance();
  }

  /** Bytes waiting for their epoch now (never more than `maxHeldBytes` after a call returns). */
  get heldBytes(): number {
    return this.heldBytesNow;
  }

  /** The kernel is gone: deliver everything still held, in epoch order. */
  flush(): void {
    for (const pipe of this.pipes) pipe.flush();
    this.seen.fill(Number.MAX_SAFE_INTEGER);
    this.advance();
  }

  private reach(source: number, n: number): void {
    // The runner writes every sync point to both pipes, so its markers on a pipe count 1, 2, 3… with no gap. Any
    // other number was written by a cell (it can read the nonce): ignored, so what follows stays in the epoch it
    // was really written in, and a forged marker can neither hold output back nor let a frame overtake it.
    if (n !== (this.seen[source] ?? 0) + 1) return;
    this.seen[source] = n;
    this.advance();
  }

  private put(epoch: number, item: ChannelItem, source: number, bytes: number): void {
    if (epoch <= this.epoch) {
      this.deliver(item);
      return;
    }
    this.held.push({ epoch, item, source, bytes });
    this.heldBytesNow += bytes;
    if (this.heldBytesNow > this.maxHeldBytes) this.releaseAll();
  }

  /** Stops waiting: everything held goes out in epoch order, and later items of those epochs go straight out. */
  private releaseAll(): void {
    const held = this.held.sort((a, b) => a.epoch - b.epoch);
    this.held = [];
    this.heldBytesNow = 0;
    this.epoch = Math.max(this.epoch, held[held.length - 1]?.epoch ?? 0);
    for (const entry of held) this.deliver(entry.item);
  }

  private advance(): void {
    const reached = Math.min(...this.seen);
    if (reached <= this.epoch) return;
    this.epoch = reached;
    this.deliverUpTo(reached);
  }

  /** Delivers the held items of epochs up to `reached`, in epoch order. */
  private deliverUpTo(reached: number): void {
    if (this.held.length === 0) return;
    const ready = this.held.filter((entry) => entry.epoch <= reached);
    this.held = this.held.filter((entry) => entry.epoch > reached);
    for (const entry of ready) this.heldBytesNow -= entry.bytes;
    ready.sort((a, b) => a.epoch - b.epoch);
    for (const entry of ready) this.deliver(entry.item);
  }
}
