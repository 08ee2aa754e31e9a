/**
 * `work`'s answer, or the error `expired` gives once `ms` have passed, whichever comes first. The
 * work is not stopped by this: `expired` is where it is cancelled, where it can be. Its later
 * failure is absorbed, so that nothing rejects unobserved; the timer never holds the process open.
 */
export function withinMs<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
