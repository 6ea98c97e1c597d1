// Keeps one MCP tool result small enough for clients to read: big values leave structuredContent and images
// past a total budget become text notes. The SDK's client refuses a message over 10 MiB and drops the
// connection (and with it the session), so a cell that displays a 26 MB PNG must not produce one.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { EvalDetails } from "../contracts/cell-result.js";
import type { CellErrorInfo, CellOutput } from "../contracts/outputs.js";
import { formatByteSize } from "../output/display/display-images.js";
import { cutIndex, keepEnds } from "../text/text-lines.js";

/** Base64 characters of image blocks in one result; later images are replaced by a note. */
export const MCP_IMAGE_BUDGET_CHARS = 5 * 1024 * 1024;
/** Serialised size of a whole result past which only a note is sent (clients stop reading at 10 MiB). */
export const MCP_MESSAGE_LIMIT_CHARS = 9 * 1024 * 1024;
/** Characters of text blocks in one result (a 200-cell call of 70 KB views each would be 14 MB). */
export const MCP_TEXT_BUDGET_CHARS = 2 * 1024 * 1024;
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
  const small = shrinkDetails(details, SMALL_VALUE_CHARS);
  if (JSON.stringify(small).length <= budgetChars) return small;
  // Many outputs (display() in a loop over 300,000 rows): keep each cell's first and last ones.
  const few = {
    ...small,
    cells: small.cells.map((cell) => ({
      ...cell,
      outputs: keepEnds(cell.outputs, EDGE_OUTPUTS, omittedOutputs),
    })),
  };
  if (JSON.stringify(few).length <= budgetChars) return few;
  // Many cells: outputs go entirely; text, status and errors remain, as in the content.
  return {
    ...few,
    cells: few.cells.map((cell) => ({
      ...cell,
      text: clampWithNote(cell.text, SMALL_VALUE_CHARS),
      outputs: [omittedOutputs(cell.outputs.length)],
    })),
  };
}

/** Text blocks of one result within a total; later blocks keep their first characters and a note. */
export function fitTextToBudget(content: Content, budgetChars = MCP_TEXT_BUDGET_CHARS): Content {
  let spent = 0;
  return content.map((block) => {
    if (block.type !== "text") return block;
    const room = Math.max(SMALL_VALUE_CHARS, budgetChars - spent);
    spent += Math.min(block.text.length, room);
    if (block.text.length <= room) return block;
    return { ...block, text: clampWithNote(block.text, room) };
  });
}

const EDGE_OUTPUTS = 50;

function omittedOutputs(count: number): CellOutput {
  return {
    type: "stream",
    name: "stderr",
    text: `[${count} outputs left out of this MCP result to keep it readable]\n`,
  };
}

function shrinkDetails(details: EvalDetails, limit: number): EvalDetails {
  return {
    ...details,
    cells: details.cells.map((cell) => {
      const shrunk = { ...cell, outputs: cell.outputs.map((o) => shrinkOutput(o, limit)) };
      if (cell.error) shrunk.error = shrinkError(cell.error, limit);
      return shrunk;
    }),
  };
}

function shrinkError(error: CellErrorInfo, limit: number): CellErrorInfo {
  const text = (value: string) => clampWithNote(value, limit);
  const traceback = keepEnds(error.traceback, EDGE_OUTPUTS, (count) => `… ${count} lines left out`).map(text);
  return { ename: text(error.ename), evalue: text(error.evalue), traceback };
}

/** `text` cut to `limit` characters (never inside a surrogate pair) with a note of what was left out. */
function clampWithNote(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = cutIndex(text, limit);
  return `${text.slice(0, cut)}${omittedNote(text.length - cut)}`;
}

function shrinkOutput(output: CellOutput, limit: number): CellOutput {
  if (output.type === "stream") {
    if (output.text.length <= limit) return output;
    return { ...output, text: clampWithNote(output.text, limit) };
  }
  if (output.type === "error") return { type: "error", ...shrinkError(output, limit) };
  if (output.type !== "display" && output.type !== "result") return output;
  const data: Record<string, unknown> = {};
  let isChanged = false;
  for (const [mime, value] of Object.entries(output.data)) {
    const size = typeof value === "string" ? value.length : JSON.stringify(value ?? null).length;
    if (size > limit && mime !== "text/plain") {
      data[mime] = omittedNote(size);
      isChanged = true;
    } else if (mime === "text/plain" && typeof value === "string" && value.length > limit) {
      data[mime] = clampWithNote(value, limit);
      isChanged = true;
    } else {
      data[mime] = value;
    }
  }
  const metadata = output.metadata;
  if (metadata !== undefined && JSON.stringify(metadata).length > limit) {
    return { ...output, data, metadata: { evalkit: omittedNote(JSON.stringify(metadata).length) } };
  }
  return isChanged ? { ...output, data } : output;
}

function omittedNote(chars: number): string {
  return `…[${formatByteSize(chars)} left out of this MCP result to keep it readable; the text content shows the output]`;
}
