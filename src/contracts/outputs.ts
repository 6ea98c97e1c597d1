// Output vocabulary shared by every layer: what a cell produced, in order (DESIGN.md §3.2).

/** A MIME bundle: `{ "text/plain": "...", "image/png": "<base64>", ... }`. */
export type MimeBundle = Record<string, unknown>;

/** Python traceback / JS stack as the kernel reported it. */
export interface CellErrorInfo {
  ename: string;
  evalue: string;
  traceback: string[];
}

export interface StreamOutput {
  type: "stream";
  name: "stdout" | "stderr";
  text: string;
  /**
   * Set by the Python kernel, on live outputs only, when the text is known to hold nothing but printable
   * ASCII, `\n` and `\t`: the output sink may then skip its scan for characters to clean (a hint, never
   * required).
   */
  isPlain?: boolean;
}

export interface DisplayOutput {
  type: "display" | "result";
  data: MimeBundle;
  metadata?: Record<string, unknown>;
  /** Set when the display was created with a display id (IPython's `display_id`). */
  displayId?: string;
  /** True when this output replaces earlier displays with the same `displayId`. */
  update?: true;
}

export interface ClearOutput {
  type: "clear_output";
  wait: boolean;
}

export interface ErrorOutput extends CellErrorInfo {
  type: "error";
}

export interface StatusOutput {
  type: "status";
  event: { op: string; [key: string]: unknown };
}

/** What a kernel emits while a cell runs (Python and JS alike). */
export type KernelOutput = StreamOutput | DisplayOutput | ClearOutput | ErrorOutput;

/** What a cell result lists: kernel outputs plus status events decoded from display bundles. */
export type CellOutput = KernelOutput | StatusOutput;

/** The MIME type that carries prelude status events inside display bundles. */
export const STATUS_MIME = "application/x-evalkit-status";
