// The deadline a kernel's start-up runs against: the runner's `ready`, or an error once the runner stays silent.

/** `ready`'s value, or the error `timeoutError()` builds (when it fires, with what is known then) after `ms`. */
export async function withStartDeadline<T>(
  ready: Promise<T>,
  ms: number,
  timeoutError: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), ms);
  });
  try {
    return await Promise.race([ready, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
