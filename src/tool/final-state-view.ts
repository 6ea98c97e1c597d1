// The model's view of a cell whose displays were updated or cleared: the final state (as a notebook shows it),
// also when the output was truncated, with the artifact of the output as it happened still named.
import type { DisplayParts } from "../output/display/display-render.js";
import { OutputSink, type OutputSinkOptions, type OutputSinkResult } from "../output/streams/output-sink.js";
import type { CollectedCell } from "./cell-collector.js";

/**
 * Replaces `collected.text` (and images) by the final state built from the retained outputs (`parts`). When the
 * stream text kept in `details.outputs` was capped, the final state would lose the end of the streams: the view
 * as it happened stays, followed by the final state of the displays (`parts` rendered without streams).
 */
export function applyFinalState(
  collected: CollectedCell,
  result: OutputSinkResult,
  parts: DisplayParts,
  sinkOptions: OutputSinkOptions,
  isStreamCapped: boolean,
): void {
  const asItHappened = result.truncated
    ? `; the output as it happened (${result.totalBytes} bytes): ${result.truncated.artifact}`
    : "";
  if (isStreamCapped) {
    const sink = new OutputSink(sinkOptions);
    sink.push(parts.text);
    const section = sink.finish();
    const base =
      collected.text.endsWith("\n") || collected.text === "" ? collected.text : `${collected.text}\n`;
    collected.text = `${base}… final state of the displays (updates and clear_output applied)${asItHappened}:\n${section.text}`;
    collected.images = parts.images;
    return;
  }
  const sink = new OutputSink(sinkOptions);
  sink.push(parts.text);
  const final = sink.finish();
  collected.text = final.text;
  collected.images = parts.images; // takeDisplayImage already left out what is too large or too many
  if (result.truncated) {
    // The final state is shown; the whole output as it happened stays the cell's artifact.
    const base = final.text.endsWith("\n") || final.text === "" ? final.text : `${final.text}\n`;
    collected.text = `${base}… final state shown (display updates and clear_output applied)${asItHappened}`;
    return;
  }
  if (final.truncated) collected.truncated = final.truncated;
}
