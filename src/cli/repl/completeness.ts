// JavaScript completeness for the prompt: the JS kernel has no isComplete (its runner cannot judge), so acorn does.
import { parse } from "acorn";
import type { CompletenessReply } from "../../kernel/kernel.js";

/** The kernel's answer (its isComplete) or acorn's (JS): run it, keep reading (with this indent), or run it to show the error. */
export type Completeness = CompletenessReply;

/**
 * JS: incomplete when acorn fails at the very end of the input (an open block, call or expression) or inside
 * an unterminated template literal or block comment, the only tokens that may span lines.
 */
export function checkJsComplete(code: string): Completeness {
  if (code.trim() === "") return { status: "complete", indent: "" };
  try {
    parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      allowHashBang: true,
    });
    return { status: "complete", indent: "" };
  } catch (err) {
    const message = err instanceof Error ? err.message : "";
    const pos = (err as { pos?: unknown }).pos;
    const isAtEnd = typeof pos === "number" && pos >= code.trimEnd().length;
    const isOpenToken = /^Unterminated (template|comment)/.test(message);
    if ((isAtEnd && message.startsWith("Unexpected token")) || isOpenToken)
      return { status: "incomplete", indent: isOpenToken ? "" : nextJsIndent(code) };
    return { status: "invalid", indent: "" };
  }
}

function nextJsIndent(code: string): string {
  const lines = code.split("\n");
  const last = lines[lines.length - 1] ?? "";
  const indent = /^[ \t]*/.exec(last)?.[0] ?? "";
  return /[{([]\s*$/.test(last) ? `${indent}  ` : indent;
}
