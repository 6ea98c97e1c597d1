// Keeps one MCP tool result small enough for clients to read: big values leave structuredContent and images
// past a total budget become text notes. The SDK's client refuses a message over 10 MiB and drops the
// connection (and with it the session), so a cell that displays a 26 MB PNG must not produce one.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { EvalDetails } from "../contracts/cell-result.js";
import type { CellOutput } from "../contracts/outputs.js";
import { formatByteSize } from "../output/display-images.js";

/** Base64 characters of image blocks in one result; later images are replaced by a note. */
export const MCP_IMAGE_BUDGET_CHARS = 6 * 1024 * 1024;
/** Serialised size of structuredContent above which large values are replaced. */
export const MCP_STRUCTURED_BUDGET_CHARS = 1024 * 1024;
/** Values at least this large go first; if that is not enough, every value above the small limit goes. */
const LARGE_VALUE_CHARS = 64 * 1024;
const SMALL_VALUE_CHARS = 1024;

type Content = CallToolResult["content"];

/** Image blocks in order until the budget is spent; the rest become a one-line text note each. */
export function fitImagesToBudget(content: Content, budgetChars = MCP_IMAGE_BUDGET_CHARS): Content {
  let spent = 0;
  return content.map((block) => {
    if (block.type !== "image") return block;
    if (spent + block.data.length <= budgetChars) {
      spent += block.data.length;
      return block;
    }
    const size = formatByteSize(Math.floor((block.data.length * 3) / 4));
    return {
      type: "text" as const,
      text: `[${block.mimeType} image of ${size} left out: this result already carries ${formatByteSize(spent)} of images, the most one MCP message should hold]`,
    };
  });
}

/** `details` as is when it is small enough, else a copy whose large display data and streams are notes. */
export function fitDetailsToBudget(
  details: EvalDetails,
  budgetChars = MCP_STRUCTURED_BUDGET_CHARS,
): EvalDetails {
  if (JSON.stringify(details).length <= budgetChars) return details;
  const large = shrinkDetails(details, LARGE_VALUE_CHARS);
  if (JSON.stringify(large).length <= budgetChars) return large;
  return shrinkDetails(details, SMALL_VALUE_CHARS);
}

function shrinkDetails(details: EvalDetails, limit: number): EvalDetails {
  return {
    ...details,
    cells: details.cells.map((cell) => ({
      ...cell,
      outputs: cell.outputs.map((o) => shrinkOutput(o, limit)),
    })),
  };
}

function shrinkOutput(output: CellOutput, limit: number): CellOutput {
  if (output.type === "stream") {
    if (output.text.length <= limit) return output;
    return { ...output, text: `${output.text.slice(0, limit)}${omittedNote(output.text.length - limit)}` };
  }
  if (output.type !== "display" && output.type !== "result") return output;
  const data: Record<string, unknown> = {};
  let isChanged = false;
  for (const [mime, value] of Object.entries(output.data)) {
    const size = typeof value === "string" ? value.length : JSON.stringify(value ?? null).length;
    if (size > limit && mime !== "text/plain") {
      data[mime] = omittedNote(size);
      isChanged = true;
    } else if (mime === "text/plain" && typeof value === "string" && value.length > limit) {
      data[mime] = `${value.slice(0, limit)}${omittedNote(value.length - limit)}`;
      isChanged = true;
    } else {
      data[mime] = value;
    }
  }
  return isChanged ? { ...output, data } : output;
}

function omittedNote(chars: number): string {
  return `…[${formatByteSize(chars)} left out of this MCP result to keep it readable; the text content shows the output]`;
}
