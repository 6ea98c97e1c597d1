// Turns zod issues into messages that name the field and say what was expected and what came (CLI, tool, MCP).
import type { z } from "zod";

/** `cells[0].language` for `["cells", 0, "language"]`; `input` for the root. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "input" : out;
}

/** The value at `path` inside `input` (undefined when the path does not exist). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A short description of what the caller sent: `"rb"`, `42`, `null`, `an array`, `nothing`. */
export function describeReceived(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

const TYPE_NAMES: Record<string, string> = {
  array: "an array",
  object: "an object",
  string: "a string",
  number: "a number",
  boolean: "true or false",
};

/** Why a known language is missing from the enum: it was turned off, not misspelt. */
const DISABLED_LANGUAGE_NOTES: Record<string, string> = {
  py: "Python cells are turned off here (EVALKIT_PY=0 or the tool's py option)",
  python: "Python cells are turned off here (EVALKIT_PY=0 or the tool's py option)",
  js: "JavaScript cells are turned off here (EVALKIT_JS=0 or the tool's js option)",
  javascript: "JavaScript cells are turned off here (EVALKIT_JS=0 or the tool's js option)",
};

/** The message for one issue, without the path. */
function describeIssue(issue: z.core.$ZodIssue, received: unknown): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `expected ${expected}, got ${describeReceived(received)}`;
    }
    case "invalid_value": {
      // Custom messages (the language enum) already say what is allowed in plain words.
      const expected = issue.message.startsWith("expected ")
        ? issue.message.slice("expected ".length)
        : issue.values.map((v) => JSON.stringify(v)).join(" or ");
      const disabled = DISABLED_LANGUAGE_NOTES[String(received)];
      if (
        issue.path.at(-1) === "language" &&
        disabled !== undefined &&
        !issue.values.includes(received as never)
      ) {
        return `expected ${expected}, got ${describeReceived(received)}: ${disabled}`;
      }
      return `expected ${expected}, got ${describeReceived(received)}`;
    }
    case "too_small":
      if (issue.origin === "array") {
        return `expected at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}, got ${describeReceived(received)}`;
      }
      if (issue.origin === "string") return `expected a non-empty string, got ${describeReceived(received)}`;
      return `expected a value ${issue.inclusive ? ">=" : ">"} ${issue.minimum}, got ${describeReceived(received)}`;
    case "too_big":
      return `expected a value ${issue.inclusive ? "<=" : "<"} ${issue.maximum}, got ${describeReceived(received)}`;
    default:
      return issue.message;
  }
}

/**
 * One line per issue, each naming the field: `cells[0].language: expected "py" or "js", got "rb"`.
 * `input` is what was validated, so the message can show what was actually sent.
 */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  return issues.flatMap((issue) => {
    const path = issue.path as PropertyKey[];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map(
        (key) => `${formatIssuePath([...path, key])}: unknown key (misspelt or not supported)`,
      );
    }
    return [`${formatIssuePath(path)}: ${describeIssue(issue, valueAt(input, path))}`];
  });
}

/** The first field named by the issues (for `EvalkitError.details.field`). */
export function firstIssueField(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (!first) return "input";
  const path = first.path as PropertyKey[];
  const key = first.code === "unrecognized_keys" ? first.keys[0] : undefined;
  return formatIssuePath(key === undefined ? path : [...path, key]);
}
