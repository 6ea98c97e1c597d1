// The words for how a cell ended: one vocabulary for the transcript renderer and the terminal renderer.
import type { CellResult, CellStatus, TruncationInfo } from "../contracts/cell-result.js";
import type { CellErrorInfo } from "../contracts/outputs.js";
import { formatDuration } from "../text/text-lines.js";

/** Which notice a line is: lets renderers colour each kind differently. */
export type NoticeKind =
  | "error"
  | "timeout"
  | "cancelled"
  | "killed"
  | "died"
  | "skipped"
  | "truncated"
  | "note";

/** One notice line, before any colouring. */
export interface Notice {
  kind: NoticeKind;
  text: string;
}

/** The parts of a cell result that notices are made from. */
export type NoticeSource = Pick<CellResult, "status" | "durationMs" | "error" | "truncated" | "notices">;

/** `ZeroDivisionError: division by zero` (or just the name when there is no message). */
export function formatErrorLine(error: CellErrorInfo): string {
  return error.evalue === "" ? error.ename : `${error.ename}: ${error.evalue}`;
}

/** The notice for a status that is not `ok`, or null for `ok`. */
export function statusNotice(status: CellStatus, durationMs: number, error?: CellErrorInfo): Notice | null {
  switch (status) {
    case "ok":
      return null;
    case "error":
      return {
        kind: "error",
        text: `[error] ${error ? formatErrorLine(error) : "the cell raised an error"}`,
      };
    case "timeout":
      return {
        kind: "timeout",
        text: `[timeout] the cell ran past its time limit and was interrupted (after ${formatDuration(durationMs)})`,
      };
    case "cancelled":
      return { kind: "cancelled", text: "[cancelled] the cell was interrupted before it finished" };
    case "killed":
      return {
        kind: "killed",
        text: "[killed] the kernel did not stop when interrupted and was killed; its variables and imports are lost",
      };
    case "died":
      return {
        kind: "died",
        text: "[died] the kernel process exited while the cell ran; its variables and imports are lost",
      };
    case "skipped":
      return { kind: "skipped", text: "[skipped] not run because an earlier cell did not finish ok" };
    case "running":
      // A job's cell between returns: not an ending, so no notice.
      return null;
  }
}

/** `[truncated] output shortened: 5242880 bytes / 200000 lines in total; full output: artifact://…`. */
export function truncationNotice(truncated: TruncationInfo): Notice {
  return {
    kind: "truncated",
    text: `[truncated] output shortened: ${truncated.totalBytes} bytes / ${truncated.totalLines} lines in total; full output: ${truncated.artifact}`,
  };
}

/** Every notice of a cell in display order: status, truncation, then the cell's own notes. */
export function collectNotices(source: NoticeSource): Notice[] {
  const notices: Notice[] = [];
  const status = statusNotice(source.status, source.durationMs, source.error);
  if (status !== null) notices.push(status);
  if (source.truncated) notices.push(truncationNotice(source.truncated));
  for (const note of source.notices ?? []) notices.push({ kind: "note", text: `[note] ${note}` });
  return notices;
}
