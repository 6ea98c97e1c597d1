// The raw side of one stream: bytes held in memory until they pass a threshold (or the owner opens it early),
// then the artifact, written in batches up to its cap; the first failure stops writing and is reported.
import { ArtifactBatch } from "./artifact-batch.js";
import { type ArtifactStore, type ArtifactWriter, createArtifactStore } from "./artifact-store.js";

export interface ArtifactSpillOptions {
  /** Where the artifact goes; default a store on `artifactDir` or `$EVALKIT_HOME/artifacts`. */
  store: ArtifactStore | undefined;
  artifactDir: string | undefined;
  /** Raw bytes kept in memory before the artifact is created. */
  thresholdBytes: number;
  /** Most bytes written to the artifact; the rest is counted but not stored. */
  maxBytes: number;
}

/** Holds a stream's raw bytes; most streams fit the view, so no file is made before {@link open}. */
export class ArtifactSpill {
  readonly maxBytes: number;
  private total = 0;
  private readonly options: ArtifactSpillOptions;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private writer: ArtifactWriter | null = null;
  private batch: ArtifactBatch | null = null;
  private failure: string | null;

  /** `failure`: why nothing may be stored at all (the cap was used up before this stream began). */
  constructor(options: ArtifactSpillOptions, failure: string | null = null) {
    this.options = options;
    this.maxBytes = options.maxBytes;
    this.failure = failure;
  }

  /** Bytes of the raw output so far, stored or not. */
  get totalBytes(): number {
    return this.total;
  }

  /** The artifact URI once it exists, else null. */
  get uri(): string | null {
    return this.writer?.uri ?? null;
  }

  /** Why the artifact could not be written, if it could not. */
  get error(): string | null {
    return this.failure;
  }

  /** True once the artifact exists (and {@link writePlain} may be used). */
  get isOpen(): boolean {
    return this.batch !== null;
  }

  /** Plain ASCII text once the artifact is open: one byte per character, copied straight into the batch. */
  writePlain(text: string): void {
    this.total += text.length;
    const batch = this.batch!;
    if (this.failure !== null) return;
    batch.appendLatin1(text);
    if (batch.error !== null) this.failure = batch.error;
  }

  /** Takes bytes (copied when held: they may live in a scratch buffer). */
  write(bytes: Buffer): void {
    this.total += bytes.length;
    if (this.writer === null && this.failure === null) {
      this.buffered.push(Buffer.from(bytes));
      this.bufferedBytes += bytes.length;
      if (this.bufferedBytes > this.options.thresholdBytes) this.open();
      return;
    }
    this.append(bytes);
  }

  /** Creates the artifact and writes what was buffered so far. */
  open(): void {
    if (this.writer !== null || this.failure !== null) return;
    try {
      const store = this.options.store ?? createArtifactStore({ dir: this.options.artifactDir });
      this.writer = store.create();
    } catch (err) {
      this.failure = err instanceof Error ? err.message : String(err);
      this.buffered = [];
      return;
    }
    this.batch = new ArtifactBatch(this.writer, this.maxBytes);
    const buffered = this.buffered;
    this.buffered = [];
    this.bufferedBytes = 0;
    for (const bytes of buffered) this.append(bytes);
  }

  /** Writes what the batch holds, so a failed last write is known before the view refers to the artifact. */
  flush(): void {
    const batch = this.batch;
    if (batch === null || this.failure !== null) return;
    batch.flush();
    if (batch.error !== null) this.failure = batch.error;
  }

  /** How the view refers to the full output. */
  reference(): string {
    if (this.failure !== null) return `full output could not be saved (${this.failure})`;
    const writer = this.writer;
    if (writer === null) return "full output not saved";
    const isCapped = this.total > this.maxBytes;
    return isCapped
      ? `first ${this.maxBytes} bytes of the output: ${writer.uri}`
      : `full output: ${writer.uri}`;
  }

  /**
   * Ends the stream: the artifact is closed and returned when `isNeeded` (the view lost something) and every
   * write succeeded, otherwise removed. Memory held for it is let go either way.
   */
  end(isNeeded: boolean): ArtifactWriter | null {
    if (isNeeded) this.flush();
    this.buffered = [];
    this.batch = null;
    const writer = this.writer;
    if (writer === null) return null;
    if (isNeeded && this.failure === null) {
      writer.close();
      return writer;
    }
    writer.discard();
    return null;
  }

  private append(bytes: Buffer): void {
    const batch = this.batch;
    if (batch === null || this.failure !== null) return;
    batch.append(bytes);
    if (batch.error !== null) this.failure = batch.error;
  }
}
