// The secrets one call redacts: read from the host's environment at every call (a secret set a moment ago is
// hidden), and only when some text is long enough to hold one, so a short result (`2`) never reads them.
import { createRedactor, type Redactor } from "../output/streams/redact.js";
import { collectSecretValues, type SecretValue } from "../runtime/env-filter.js";

/** One call's secrets, read when first needed (never for a call whose output is shorter than any secret). */
export interface CallSecrets {
  /** The secret values, read now if they were not read yet. */
  list(): readonly SecretValue[];
  /** Redacts with those values. */
  redact: Redactor;
}

interface Snapshot {
  secrets: readonly SecretValue[];
  redact: Redactor;
}

function isSameList(a: readonly SecretValue[], b: readonly SecretValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i]!.name !== b[i]!.name || a[i]!.value !== b[i]!.value) return false;
  return true;
}

/** Both lists, each value once, longest first (as collectSecretValues orders one). */
function mergeSecrets(a: readonly SecretValue[], b: readonly SecretValue[]): SecretValue[] {
  const seen = new Set(a.map((secret) => secret.value));
  return [...a, ...b.filter((secret) => !seen.has(secret.value))].sort(
    (x, y) => y.value.length - x.value.length,
  );
}

/**
 * A reader of the environment plus `extra` (the tool's own `env` option). Each `forCall()` reads afresh; a list
 * equal to the previous one is the previous object, so the redactors compiled for it are reused.
 */
export function createSecretReader(extra: Record<string, string>): { forCall(): CallSecrets } {
  let last: Snapshot | undefined;
  const hasExtra = Object.keys(extra).length > 0;
  const read = (): Snapshot => {
    // No copy of process.env (a spread costs more than the read): the tool's own `env` is collected apart.
    const secrets = hasExtra
      ? mergeSecrets(collectSecretValues(process.env), collectSecretValues(extra))
      : collectSecretValues(process.env);
    if (last !== undefined && isSameList(last.secrets, secrets)) return last;
    last = { secrets, redact: createRedactor(secrets) };
    return last;
  };
  return {
    forCall() {
      let snapshot: Snapshot | undefined;
      const get = () => {
        snapshot ??= read();
        return snapshot;
      };
      return {
        list: () => get().secrets,
        redact: (text) => get().redact(text),
      };
    },
  };
}
