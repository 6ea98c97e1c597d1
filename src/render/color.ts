// Terminal colour: whether to use it (a pure function of isTTY and the environment) and helpers that obey it.

/** Decides colour for a stream: off unless it is a TTY; NO_COLOR (non-empty) and TERM=dumb turn it off;
 * FORCE_COLOR turns it on (`0`/`false` turn it off), beating everything else. */
export function shouldUseColor(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "") return force !== "0" && force.toLowerCase() !== "false";
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  if (env["TERM"] === "dumb") return false;
  return stream.isTTY === true;
}

/** Wraps text in one SGR style, or returns it as is when colour is off. */
export type Paint = (text: string) => string;

export interface Palette {
  readonly isEnabled: boolean;
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
  dim: Paint;
  bold: Paint;
  boldRed: Paint;
}

function style(open: string, enabled: boolean): Paint {
  if (!enabled) return (text) => text;
  return (text) => (text === "" ? text : `\x1b[${open}m${text}\x1b[0m`);
}

/** Colour helpers that emit ANSI only when `color` is true. */
export function createPalette(options: { color: boolean }): Palette {
  const on = options.color;
  return {
    isEnabled: on,
    red: style("31", on),
    green: style("32", on),
    yellow: style("33", on),
    blue: style("34", on),
    magenta: style("35", on),
    cyan: style("36", on),
    dim: style("2", on),
    bold: style("1", on),
    boldRed: style("1;31", on),
  };
}
