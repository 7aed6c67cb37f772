/**
 * Iterating an async source one step ahead: the next item is asked for as soon as the current one
 * is handed out, so its work (a page request) runs while the consumer handles the current one.
 */

/**
 * Iterates `source` one step ahead: the next item is asked for as soon as the current one is handed
 * out. Its request leaves at the consumer's first wait (a write waiting to drain, a database query),
 * not after the consumer is done with the current item. Two items at most are held. Each step of
 * `source` is taken inside `run` (a telemetry run, so that the request it makes is seen as part of it).
 */
export async function* readAhead<T>(
  source: AsyncIterable<T>,
  run: <R>(work: () => R) => R = (work) => work(),
): AsyncGenerator<T, void, undefined> {
  const iterator = run(() => source[Symbol.asyncIterator]());
  let next = run(() => iterator.next());
  try {
    for (;;) {
      const result = await next;
      if (result.done) return;
      next = run(() => iterator.next());
      // An item asked for ahead may fail after the consumer stopped (Ctrl-C, `break`): never unhandled.
      next.catch(() => undefined);
      yield result.value;
    }
  } finally {
    await run(() => iterator.return?.());
  }
}
