// Images in the REPL: inline through the kitty or iTerm2 protocol when the terminal says it speaks one, else a file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirectory } from "../../output/artifacts/make-directory.js";
import { createRedactor } from "../../output/streams/redact.js";
import { collectSecretValues } from "../../runtime/env-filter.js";
import { pruneImageDir } from "./image-prune.js";

/** The inline image protocols the REPL knows. */
export type ImageProtocol = "kitty" | "iterm2";

/** Image MIME types a display bundle may carry, in the order the REPL prefers them. */
export const REPL_IMAGE_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/svg+xml",
] as const;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
};

/** Formats each protocol can draw (kitty's `f=100` is PNG only). */
const INLINE_FORMATS: Record<ImageProtocol, readonly string[]> = {
  kitty: ["image/png"],
  iterm2: ["image/png", "image/jpeg", "image/gif"],
};

/**
 * The protocol the terminal announces through its environment, or undefined. Only explicit markers count:
 * kitty (`TERM=xterm-kitty`, `KITTY_WINDOW_ID`), Ghostty (kitty protocol), iTerm2 and WezTerm (`TERM_PROGRAM`,
 * or `LC_TERMINAL=iTerm2` over ssh). Inside tmux or screen nothing is inline: they drop or mangle the escapes.
 */
export function detectImageProtocol(
  env: Record<string, string | undefined>,
  isTTY: boolean,
): ImageProtocol | undefined {
  if (!isTTY) return undefined;
  if (env.TMUX || env.STY || env.TERM?.startsWith("screen") || env.TERM?.startsWith("tmux")) return undefined;
  const program = env.TERM_PROGRAM ?? "";
  if (program === "iTerm.app" || program === "WezTerm" || env.LC_TERMINAL === "iTerm2") return "iterm2";
  if (
    env.TERM === "xterm-kitty" ||
    env.KITTY_WINDOW_ID ||
    env.TERM === "xterm-ghostty" ||
    program === "ghostty"
  )
    return "kitty";
  return undefined;
}

/** The escape sequence that draws `base64` inline, or undefined when the protocol cannot draw this format. */
export function encodeInlineImage(protocol: ImageProtocol, mime: string, base64: string): string | undefined {
  if (!INLINE_FORMATS[protocol].includes(mime)) return undefined;
  if (protocol === "iterm2") {
    const bytes = Buffer.byteLength(base64, "base64");
    return `\x1b]1337;File=inline=1;size=${bytes};preserveAspectRatio=1:${base64}\x07\n`;
  }
  // kitty: transmit-and-display in chunks of at most 4096 base64 characters; m=1 means more follows.
  const chunks: string[] = [];
  for (let at = 0; at < base64.length; at += 4096) chunks.push(base64.slice(at, at + 4096));
  return `${chunks
    .map((chunk, i) => {
      const more = i < chunks.length - 1 ? 1 : 0;
      const control = i === 0 ? `a=T,f=100,m=${more}` : `m=${more}`;
      return `\x1b_G${control};${chunk}\x1b\\`;
    })
    .join("")}\n`;
}

/** Where an image went; `failed` says why it could not be saved (the run goes on, the line says so). */
export type ShownImage =
  | { kind: "inline"; text: string }
  | { kind: "file"; path: string; mime: string }
  | { kind: "failed"; mime: string; reason: string };

// Per process, not per ImageOutput: two outputs made in the same second must not write the same file name.
let savedCount = 0;

/** Shows images for one REPL run: inline when `protocol` is set and can draw the format, else files in `dir`. */
export class ImageOutput {
  private readonly protocol: ImageProtocol | undefined;
  private readonly dir: string;
  private readonly stamp: string;
  /** evalkit's own folder, pruned before the first save; a folder the user named is left as it is. */
  private isPruneDue: boolean;

  constructor(options: {
    protocol: ImageProtocol | undefined;
    dir: string;
    isManagedDir?: boolean;
    now?: Date;
  }) {
    this.protocol = options.protocol;
    this.dir = options.dir;
    this.isPruneDue = options.isManagedDir === true;
    this.stamp = formatStamp(options.now ?? new Date());
  }

  /** The first image of a display bundle, or undefined when it has none. */
  pickImage(bundle: Record<string, unknown>): { mime: string; data: string } | undefined {
    for (const mime of REPL_IMAGE_TYPES) {
      const value = bundle[mime];
      if (typeof value === "string" && value !== "") return { mime, data: value };
    }
    return undefined;
  }

  /** Draws or saves one image (`data` is base64, or the SVG source for image/svg+xml). */
  show(mime: string, data: string): ShownImage {
    if (this.protocol && mime !== "image/svg+xml") {
      const text = encodeInlineImage(this.protocol, mime, data);
      if (text !== undefined) return { kind: "inline", text };
    }
    try {
      return { kind: "file", path: this.save(mime, data), mime };
    } catch (err) {
      // A full disk or a directory that cannot be made must not end the cell's output, nor pass in silence.
      const reason = err instanceof Error ? err.message : String(err);
      return { kind: "failed", mime, reason: `${reason} (images go to ${this.dir})` };
    }
  }

  private save(mime: string, data: string): string {
    makeDirectory(this.dir);
    if (this.isPruneDue) {
      this.isPruneDue = false;
      pruneImageDir(this.dir);
    }
    savedCount += 1;
    const path = join(this.dir, `${this.stamp}-${savedCount}.${EXTENSIONS[mime] ?? "bin"}`);
    // An SVG is text: a secret the cell wrote into it must not land in a file (the REPL shows kernel output unredacted
    // on the user's own terminal, but files outlive the session).
    const bytes =
      mime === "image/svg+xml"
        ? Buffer.from(createRedactor(collectSecretValues(process.env))(data), "utf8")
        : Buffer.from(data, "base64");
    writeFileSync(path, bytes);
    return path;
  }
}

function formatStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${pad(date.getHours())}${pad(
    date.getMinutes(),
  )}${pad(date.getSeconds())}-${process.pid}`;
}
