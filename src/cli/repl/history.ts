// The REPL's persistent input history: one entry per line in $EVALKIT_HOME/history, oldest first, bounded.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeDirectory } from "../../output/artifacts/make-directory.js";

/** Entries kept in the history file (and offered by the up arrow). */
export const HISTORY_LIMIT = 1000;

/** `$EVALKIT_HOME/history`, or `history-<session>` for a named session. */
export function resolveHistoryPath(evalkitHome: string, session?: string): string {
  return join(evalkitHome, session === undefined ? "history" : `history-${session}`);
}

/** Reads the history file, newest entry first (readline's order); a missing or unreadable file is empty. */
export function loadHistory(path: string, limit: number = HISTORY_LIMIT): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const entries = text.split("\n").filter((line) => line.trim() !== "");
  return entries.slice(-limit).reverse();
}

/**
 * Writes `newestFirst` (readline's order) to the file, oldest first, at most `limit` entries. Written to a
 * temporary file and renamed, so a crash never leaves half a history; mode 0600 because history can hold
 * secrets a user typed. Failures are returned, not thrown: losing history must not end a session.
 */
export function saveHistory(path: string, newestFirst: readonly string[], limit: number = HISTORY_LIMIT) {
  const entries = newestFirst
    .filter((line) => line.trim() !== "" && !line.includes("\n"))
    .slice(0, limit)
    .reverse();
  try {
    makeDirectory(dirname(path));
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, entries.length > 0 ? `${entries.join("\n")}\n` : "", { mode: 0o600 });
    renameSync(temporary, path);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
