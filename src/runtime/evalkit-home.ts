// Where evalkit keeps its state (caches, artifacts, the managed venv): `$EVALKIT_HOME`, else `~/.evalkit`.
import os from "node:os";
import path from "node:path";

/** `$EVALKIT_HOME`, defaulting to `~/.evalkit`. */
export function resolveEvalkitHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EVALKIT_HOME) return path.resolve(env.EVALKIT_HOME);
  return path.join(env.HOME || env.USERPROFILE || os.homedir(), ".evalkit");
}
