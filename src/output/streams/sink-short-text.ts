// Short plain text in an output sink: with nothing to redact and no budget that could cut it, its view is the
// text itself, so the sink needs none of its machinery for it (output-sink.ts builds that on the first other text).
import {
  DEFAULT_HEAD_BYTES,
  DEFAULT_MAX_ARTIFACT_BYTES,
  DEFAULT_SINK_MAX_LINE_CHARS,
  DEFAULT_TAIL_BYTES,
  type OutputSinkOptions,
  type OutputSinkResult,
} from "./sink-options.js";

/** Printable ASCII, `\n` and `\t`: text the sanitiser leaves as it is (sanitize.ts). */
export const PLAIN_TEXT = /^[\x20-\x7e\n\t]*$/;
/** Short text needs no machinery: a line or a value's repr, far below every default budget. */
const SMALL_TEXT_CHARS = 2048;

/**
 * How much short plain text a sink with these options may keep as it is (0: none): while no budget could cut,
 * clamp or spill it (each is at least this much, or the shortcut is off). The sink itself stops at the first
 * text as long as a secret when there are secrets to redact (output-sink.ts), so a short result reads none.
 */
export function smallTextLimit(options: OutputSinkOptions): number {
  if ((options.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES) <= 0) return 0;
  const headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
  return Math.min(
    SMALL_TEXT_CHARS,
    headBytes,
    options.tailBytes ?? DEFAULT_TAIL_BYTES,
    options.maxLineChars ?? DEFAULT_SINK_MAX_LINE_CHARS,
    options.spillThresholdBytes ?? headBytes + (options.tailBytes ?? DEFAULT_TAIL_BYTES),
  );
}

/** finish() of a sink that only took short plain text: its view is the text itself, nothing lost or stored. */
export function smallTextResult(text: string): OutputSinkResult {
  let newlines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
  const isLastNewline = text.charCodeAt(text.length - 1) === 10;
  return {
    text,
    totalBytes: text.length,
    totalLines: newlines + (text.length > 0 && !isLastNewline ? 1 : 0),
    omittedLines: 0,
    omittedBytes: 0,
    clampedLines: 0,
  };
}
