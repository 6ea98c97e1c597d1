// Artifact ids and `artifact://` URIs: generation, validation (no path tricks) and the store's directory.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { EvalkitError } from "../../errors.js";
import { createRandomId } from "../../text/random-tokens.js";

/** URI scheme that points at a stored full output. */
export const ARTIFACT_URI_PREFIX = "artifact://";

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A fresh short random URL-safe id (12 characters, about 72 bits) that never starts with `-`: a command line
 * would read `evalkit artifact -LU3RLOsyZCw` as an option. Drawing again keeps every id equally likely.
 */
export function generateArtifactId(): string {
  for (;;) {
    const id = createRandomId(9);
    if (!id.startsWith("-")) return id;
  }
}

/** True when `id` is a well-formed artifact id. */
export function isArtifactId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** `artifact://<id>` for an id. */
export function formatArtifactUri(id: string): string {
  return ARTIFACT_URI_PREFIX + id;
}

/**
 * Accepts `artifact://<id>` or a bare id and returns the id; anything else (path separators, `..`, empty)
 * is an `INVALID_INPUT` error naming the `id` field.
 */
export function parseArtifactId(idOrUri: string): string {
  if (typeof idOrUri !== "string") {
    throw new EvalkitError("INVALID_INPUT", "id: expected a string artifact id or artifact:// URI", {
      field: "id",
    });
  }
  const trimmed = idOrUri.trim();
  const id = trimmed.startsWith(ARTIFACT_URI_PREFIX) ? trimmed.slice(ARTIFACT_URI_PREFIX.length) : trimmed;
  if (!isArtifactId(id)) {
    throw new EvalkitError(
      "INVALID_INPUT",
      `id: ${JSON.stringify(idOrUri)} is not an artifact id (expected letters, digits, "-" or "_", optionally prefixed by artifact://)`,
      { field: "id", value: idOrUri },
    );
  }
  return id;
}

/** `$EVALKIT_HOME/artifacts`, with EVALKIT_HOME defaulting to `~/.evalkit`. */
export function resolveArtifactDir(env: Record<string, string | undefined> = process.env): string {
  const home = env["EVALKIT_HOME"];
  const base = home !== undefined && home !== "" ? home : join(homedir(), ".evalkit");
  return resolve(base, "artifacts");
}
