// Schemas built on first use, and the parse options for checks that run once per object.
//
// Why: building a zod schema costs tens to hundreds of µs, and evalkit has dozens at module level; a process
// that starts, runs a cell and exits (`evalkit exec`, a script) paid for every one of them at load. And zod
// compiles an object schema into a generated function on its first parse, which pays off only for schemas
// parsed many times; options are parsed once per tool, kernel or manager.

/** A getter that builds the value on its first call and returns the same one afterwards. */
export function lazySchema<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

/** Parse context for a schema checked once per object (options): skips zod's generated fast path. */
export const PARSE_ONCE = { jitless: true } as const;
