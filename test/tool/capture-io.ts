// Captures what a CLI command writes, for tests that call runExec / runArtifact directly.
import { Readable } from "node:stream";

export interface CapturedIo {
  stdout(text: string | Uint8Array): void;
  stderr(text: string): void;
  stdin?: NodeJS.ReadableStream;
  out(): string;
  outBytes(): Buffer;
  err(): string;
}

/** An io that records stdout (bytes) and stderr; `stdinText` becomes the command's stdin. */
export function captureIo(stdinText?: string): CapturedIo {
  const out: Buffer[] = [];
  let err = "";
  const io: CapturedIo = {
    stdout: (text) => {
      out.push(typeof text === "string" ? Buffer.from(text) : Buffer.from(text));
    },
    stderr: (text) => {
      err += text;
    },
    out: () => Buffer.concat(out).toString("utf8"),
    outBytes: () => Buffer.concat(out),
    err: () => err,
  };
  if (stdinText !== undefined) io.stdin = Readable.from([Buffer.from(stdinText)]);
  return io;
}
