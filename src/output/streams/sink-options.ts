// What an output sink is given and what it gives back: its options, their defaults and its result.
import type { TruncationInfo } from "../../contracts/cell-result.js";
import type { ArtifactStore } from "../artifacts/artifact-store.js";
import type { SecretValue } from "./redact.js";
import type { SanitizeOptions } from "./sanitize.js";

/** Default budget of the head of the model view: 20 KiB. */
export const DEFAULT_HEAD_BYTES = 20 * 1024;
/** Default budget of the tail window of the model view: 50 KiB. */
export const DEFAULT_TAIL_BYTES = 50 * 1024;
/** Default longest line in the model view, in characters. */
export const DEFAULT_SINK_MAX_LINE_CHARS = 4000;
/** Default cap on one artifact: 1 GiB (a runaway loop must not fill the disk). */
export const DEFAULT_MAX_ARTIFACT_BYTES = 1024 * 1024 * 1024;

export interface OutputSinkOptions {
  /** Bytes of sanitised text kept from the start (default 20 KiB). */
  headBytes?: number;
  /** Bytes of sanitised text kept from the end (default 50 KiB). */
  tailBytes?: number;
  /** Longest line kept in the view (default 4000 characters); longer ones end with `…[+N chars]`. */
  maxLineChars?: number;
  /** Keep ANSI escape sequences in the view (default false: stripped). */
  keepAnsi?: boolean;
  controlChars?: SanitizeOptions["controlChars"];
  /**
   * Secret values to replace by `[REDACTED:NAME]` in the view and the artifact; a function is called once, when
   * the text first reaches the shortest secret's length (MIN_SECRET_LENGTH), so a short output never reads them.
   */
  secrets?: readonly SecretValue[] | (() => readonly SecretValue[]);
  /** Where artifacts go; default a store on `artifactDir` or `$EVALKIT_HOME/artifacts`, created when needed. */
  store?: ArtifactStore;
  artifactDir?: string;
  /** Raw bytes kept in memory before the artifact is created (default headBytes + tailBytes). */
  spillThresholdBytes?: number;
  /** Most bytes written to one artifact (default 1 GiB); the rest is counted but not stored. */
  maxArtifactBytes?: number;
}

export interface OutputSinkResult {
  /** The model's view: head, omission notice, tail. */
  text: string;
  /** Present when the view lost something (lines omitted or clamped) and the artifact holds it. */
  truncated?: TruncationInfo;
  /** UTF-8 bytes of the output (secrets redacted; undecodable bytes count one each) = the artifact's size. */
  totalBytes: number;
  /** Lines of the output (`\n` count, plus one for an unterminated last line). */
  totalLines: number;
  omittedLines: number;
  /** Bytes of sanitised text left out between head and tail. */
  omittedBytes: number;
  clampedLines: number;
  /** Bytes stored in the artifact, when there is one (less than totalBytes only past maxArtifactBytes). */
  artifactBytes?: number;
  /** Why the artifact could not be written, if it could not. */
  artifactError?: string;
}
