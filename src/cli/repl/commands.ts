// The REPL's own commands (`:help`, `:js`, `:py`, `:restart`, `:quit`, time travel), `%more` and `clear`.
import { type LocalLanguage, toLocalLanguage } from "../../contracts/cell-result.js";
import { parseArtifactId } from "../../output/artifacts/artifact-ids.js";
import { createPalette } from "../../render/color.js";
import { type InteractiveRenderOptions, renderExpandedOutput } from "../../render/interactive-render.js";
import { truncationNotice } from "../../render/notices.js";
import type { LastCellOutput } from "./cell-output.js";

export const REPL_HELP = `evalkit repl commands
  :py               switch to Python (the default)
  :js               switch to JavaScript (a separate kernel, started on first use)
  :py CODE, :js CODE  run one line in the other language without switching
  :restart          restart the current language's kernel (its variables are lost)
  :checkpoint NAME  keep a copy of the Python state under NAME (needs --checkpoints)
  :restore NAME     go back to checkpoint NAME (it stays, so you can go back again)
  :undo             go back to before the last Python cell (needs --undo N or --checkpoints)
  :checkpoints      list the checkpoints and the memory each holds
  :LANG, :LANG CODE with --jupyter: switch to (or run one line in) a server language (:r, :julia, :bash...)
  :help             this help
  clear             clear the screen (also %clear, %cls, :clear and Ctrl-L)
  :quit             leave (also Ctrl-D on an empty line, exit, quit)
  %more             show the whole output of the last cell (long output is collapsed to 20 lines)

Everything else is code for the current kernel, including IPython-style %magics and !shell commands.
Multi-line input: a line that opens a block continues at "...:"; an empty line ends the block.
Keys: Ctrl-C interrupts a running cell (variables are kept) or clears the line; Up/Down walk the history.
`;

/** A parsed `:command`. */
export type ReplCommand =
  | { kind: "help" }
  | { kind: "quit" }
  | { kind: "restart" }
  | { kind: "switch"; language: LocalLanguage; code?: string }
  | { kind: "more" }
  | { kind: "checkpoint"; name: string }
  | { kind: "restore"; name: string }
  | { kind: "undo" }
  | { kind: "checkpoints" }
  | { kind: "clear" }
  | { kind: "unknown"; name: string };

/** Parses a line for which `isReplCommand` is true. */
export function parseReplCommand(line: string): ReplCommand {
  const text = line.trim();
  if (/^%more\s*$/.test(text)) return { kind: "more" };
  if (/^(exit|quit)(\(\))?$/.test(text)) return { kind: "quit" };
  if (/^(clear|%clear|%cls)$/.test(text)) return { kind: "clear" };
  const match = /^:(\S*)\s*([\s\S]*)$/.exec(text);
  const name = match?.[1] ?? "";
  const rest = match?.[2] ?? "";
  switch (name) {
    case "h":
    case "help":
    case "?":
      return { kind: "help" };
    case "q":
    case "quit":
    case "exit":
      return { kind: "quit" };
    case "restart":
      return { kind: "restart" };
    case "checkpoint":
    case "restore":
      return rest.trim() === ""
        ? { kind: "unknown", name: `${name} needs a NAME` }
        : { kind: name, name: rest.trim() };
    case "undo":
      return { kind: "undo" };
    case "checkpoints":
      return { kind: "checkpoints" };
    case "clear":
    case "cls":
      return { kind: "clear" };
    default: {
      // `:py`, `:python`, `:js`, `:javascript` switch language; any other name is a server language's line.
      const language = toLocalLanguage(name);
      if (language === undefined) return { kind: "unknown", name };
      return rest.trim() === "" ? { kind: "switch", language } : { kind: "switch", language, code: rest };
    }
  }
}

/** What `%more` prints: the last cell's retained output in full (each line clamped), or why there is none. */
export function renderMore(last: LastCellOutput | undefined, options: InteractiveRenderOptions): string {
  const palette = createPalette(options);
  if (last === undefined) return `${palette.dim("%more: no cell has run yet")}\n`;
  if (last.hiddenLines === 0 && last.truncated === undefined)
    return `${palette.dim("%more: the last output was already shown in full")}\n`;
  let out = renderExpandedOutput(last.text, options);
  if (last.truncated) {
    out += `${palette.cyan(truncationNotice(last.truncated).text)}\n`;
    out += `${palette.dim(`evalkit artifact ${parseArtifactId(last.truncated.artifact)} prints all of it`)}\n`;
  }
  return out;
}

/** Home the cursor, clear the screen and its scrollback: what `clear` prints on a terminal. */
export const CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J";
