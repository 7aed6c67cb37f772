/**
 * The merchant's telemetry, guarded: a hook that throws (a tracer or meter misconfigured, a
 * collector gone) loses its measurement and nothing else. The call, delivery, bulk run or
 * reconciliation it observes goes on and ends as it would have, with its own result or error.
 */
import type { Telemetry } from './telemetry.js';

/**
 * What a hook that threw is replaced with: any member is a function that does nothing and returns
 * it again (but `then`: it is not a promise).
 */
const inert: object = new Proxy({}, { get: (_, key) => (key === 'then' ? undefined : () => inert) });

/**
 * `run(work)` of an observer, guarded: `work` runs exactly once and its result (or error) is what
 * comes back, whether the observer's `run` throws before calling it, after it, or never calls it.
 */
function guardedRun<T>(run: (work: () => T) => unknown, work: () => T): T {
  let done: { value: T } | { error: unknown } | undefined;
  const watched = () => {
    try {
      done = { value: work() };
      return done.value;
    } catch (error) {
      done = { error };
      throw error;
    }
  };
  try {
    run(watched);
  } catch {
    // The observer's own failure: the work's outcome stands.
  }
  if (done === undefined) return work();
  if ('error' in done) throw done.error;
  return done.value;
}

/**
 * `target` (the telemetry, or a handle one of its hooks returned) with every method guarded: what a
 * method throws is dropped, and the handle it returns is guarded in turn. `run(work)` always runs
 * `work` once and hands back its own result or error.
 */
function guarded<T>(target: T): T {
  if (typeof target !== 'object' || target === null) return target;
  return new Proxy(target, {
    get(object, key) {
      const member: unknown = Reflect.get(object, key);
      if (typeof member !== 'function') return member;
      if (key === 'run') return (work: () => unknown) => guardedRun((w) => member.call(object, w), work);
      return (...args: unknown[]) => {
        try {
          return guarded(member.apply(object, args));
        } catch {
          return guarded(inert);
        }
      };
    },
  });
}

/** Every hook of `telemetry`, and of the handles it returns, guarded (see the module comment). */
export function guardTelemetry(telemetry: Telemetry): Telemetry {
  return guarded(telemetry);
}
