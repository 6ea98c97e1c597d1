// Secret redaction: every occurrence of a secret value becomes `[REDACTED:NAME]`, also when split across chunks.

/** A secret to hide: the environment variable's name and its value. */
export interface SecretValue {
  name: string;
  value: string;
}

/** Values shorter than this are ignored: redacting `1` or `yes` everywhere would wreck output, not protect it. */
export const MIN_SECRET_LENGTH = 4;

/** Replaces secret values in a whole text. */
export type Redactor = (text: string) => string;

/** Streaming redaction: output lags input by at most the longest secret minus one character. */
export interface StreamRedactor {
  /** Redacted text that is safe to release now. */
  push(text: string): string;
  /** Releases the held-back rest at the end of the stream. */
  flush(): string;
  /**
   * A pause, not the end (a job's return): releases all held text except a tail that is the beginning of a
   * secret, which stays held for the next chunk, so a secret printed across the pause is still caught.
   */
  release(): string;
  /** The most characters of earlier input a `push()` result can carry (0 without secrets). */
  readonly holdChars: number;
  /** True when every replacement is printable ASCII, so ASCII input gives ASCII output. */
  readonly isAsciiPreserving: boolean;
}

interface CompiledSecrets {
  pattern: RegExp;
  names: Map<string, string>;
  maxLength: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

// Every cell builds a few redactors from the same secret list (the tool re-reads it at most once a second):
// compile each list once (lists are treated as immutable, as their `readonly` type says).
const compiledCache = new WeakMap<readonly SecretValue[], Map<number, CompiledSecrets | null>>();

function compileSecrets(secrets: readonly SecretValue[], minLength: number): CompiledSecrets | null {
  let byLength = compiledCache.get(secrets);
  if (byLength === undefined) {
    byLength = new Map();
    compiledCache.set(secrets, byLength);
  }
  const cached = byLength.get(minLength);
  if (cached !== undefined) return cached;
  const compiled = compileSecretsNow(secrets, minLength);
  byLength.set(minLength, compiled);
  return compiled;
}

function compileSecretsNow(secrets: readonly SecretValue[], minLength: number): CompiledSecrets | null {
  const names = new Map<string, string>();
  for (const { name, value } of secrets) {
    if (typeof value !== "string" || value.length < minLength) continue;
    if (!names.has(value)) names.set(value, name);
  }
  if (names.size === 0) return null;
  // Longest first, so a secret that contains another is replaced whole.
  const values = [...names.keys()].sort((a, b) => b.length - a.length);
  return {
    pattern: new RegExp(values.map(escapeRegExp).join("|"), "g"),
    names,
    maxLength: values[0]!.length,
  };
}

function replaceAll(compiled: CompiledSecrets, text: string): string {
  return text.replace(compiled.pattern, (match) => `[REDACTED:${compiled.names.get(match) ?? "SECRET"}]`);
}

/** Options for the redactors. */
export interface RedactorOptions {
  /** Ignore values shorter than this (default {@link MIN_SECRET_LENGTH}). */
  minLength?: number;
}

// Without secrets a redactor holds no state: every cell shares these instead of allocating its own.
const unchanged: Redactor = (text) => text;
const passThrough: StreamRedactor = Object.freeze({
  push: unchanged,
  flush: () => "",
  release: () => "",
  holdChars: 0,
  isAsciiPreserving: true,
});

/** True when `secrets` holds a value the redactors would replace (too short or non-string ones are ignored). */
export function hasSecretsToRedact(secrets: readonly SecretValue[]): boolean {
  return compileSecrets(secrets, MIN_SECRET_LENGTH) !== null;
}

/** Builds a whole-text redactor: one combined regex, regex specials escaped, longest value first. */
export function createRedactor(secrets: readonly SecretValue[], options: RedactorOptions = {}): Redactor {
  const compiled = compileSecrets(secrets, options.minLength ?? MIN_SECRET_LENGTH);
  if (compiled === null) return unchanged;
  return (text) => replaceAll(compiled, text);
}

/**
 * Builds a streaming redactor. Text that could still be the start of a secret (the last `maxLength - 1`
 * characters) is held until the next chunk or `flush()`, so a secret split between chunks is still caught.
 * The concatenated output equals `createRedactor(secrets)(wholeText)`.
 */
export function createStreamRedactor(
  secrets: readonly SecretValue[],
  options: RedactorOptions = {},
): StreamRedactor {
  const compiled = compileSecrets(secrets, options.minLength ?? MIN_SECRET_LENGTH);
  if (compiled === null) return passThrough;
  const { pattern, maxLength } = compiled;
  const values = [...compiled.names.keys()];
  /** The first index at or after `from` where the rest of `text` is a secret's unfinished beginning. */
  const heldStart = (text: string, from: number): number => {
    for (let i = from; i < text.length; i++) {
      const rest = text.slice(i);
      if (values.some((value) => value.length > rest.length && value.startsWith(rest))) return i;
    }
    return text.length;
  };
  const redactMatch = (match: string) => `[REDACTED:${compiled.names.get(match) ?? "SECRET"}]`;
  let carry = "";
  return {
    holdChars: maxLength - 1,
    isAsciiPreserving: [...compiled.names.values()].every((name) => /^[\x20-\x7e]*$/.test(name)),
    push(text) {
      const buffer = carry + text;
      // A match starting before `safeEnd` has all the characters it needs to be decided now.
      const safeEnd = buffer.length - (maxLength - 1);
      if (safeEnd <= 0) {
        carry = buffer;
        return "";
      }
      let out = "";
      let emitted = 0;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(buffer); match !== null; match = pattern.exec(buffer)) {
        if (match.index >= safeEnd) break;
        out += buffer.slice(emitted, match.index) + redactMatch(match[0]);
        emitted = match.index + match[0].length;
      }
      const keepFrom = Math.max(safeEnd, emitted);
      out += buffer.slice(emitted, keepFrom);
      carry = buffer.slice(keepFrom);
      return out;
    },
    flush() {
      const rest = replaceAll(compiled, carry);
      carry = "";
      return rest;
    },
    release() {
      // As in push(), matches go left to right; one that begins inside the held tail waits with it.
      let out = "";
      let emitted = 0;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(carry); match !== null; match = pattern.exec(carry)) {
        if (match.index >= heldStart(carry, emitted)) break;
        out += carry.slice(emitted, match.index) + redactMatch(match[0]);
        emitted = match.index + match[0].length;
      }
      const keepFrom = heldStart(carry, emitted);
      out += carry.slice(emitted, keepFrom);
      carry = carry.slice(keepFrom);
      return out;
    },
  };
}
