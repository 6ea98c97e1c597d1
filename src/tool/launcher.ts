// Splits a launcher prefix written as one string (`docker exec -i "my box"`) into argv words, POSIX-shell style.
import { EvalkitError } from "../errors.js";

/**
 * Splits `command` into words: whitespace separates, single quotes keep everything literal, double quotes keep
 * spaces (backslash escapes `"`, `\`, `$`, `` ` `` inside them), a backslash outside quotes escapes the next
 * character. No expansion of variables or globs. An unterminated quote is INVALID_INPUT naming `field`.
 */
export function splitCommandLine(command: string, field = "launcher"): string[] {
  const words: string[] = [];
  let word = "";
  let hasWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === "\\" && i + 1 < command.length && '"\\$`'.includes(command[i + 1]!))
        word += command[++i];
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      hasWord = true;
    } else if (ch === "\\" && i + 1 < command.length) {
      word += command[++i];
      hasWord = true;
    } else if (/\s/.test(ch)) {
      if (hasWord) words.push(word);
      word = "";
      hasWord = false;
    } else {
      word += ch;
      hasWord = true;
    }
  }
  if (quote !== null) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `${field}: unterminated ${quote} quote in ${JSON.stringify(command)}`,
      {
        field,
      },
    );
  }
  if (hasWord) words.push(word);
  return words;
}
