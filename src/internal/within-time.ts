/**
 * A promise raced against a deadline, for calls to stores and databases whose own clients may wait
 * far longer than a webhook endpoint can (the service waits 10 s for an answer).
 */

/**
 * `work`, or the error `late()` makes once `ms` have passed. The timer never outlives the race, and
 * `work` settling late is never an unhandled rejection: the race keeps its handler on `work`.
 */
export function withinTime<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
