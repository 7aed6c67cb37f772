/**
 * The merchant's telemetry, guarded: a hook that throws (a tracer or meter misconfigured, a
 * collector gone) loses its measurement and nothing else. The call, delivery, bulk run or
 * reconciliation it observes goes on and ends as it would have, with its own result or error.
 */
import type { AttemptObserver, BulkObserver, CallObserver, ReconcileObserver, Telemetry, WebhookObserver } from './telemetry.js';

/** Calls `hook`; whatever it throws is dropped and `fallback` is returned. */
function quietly<T>(hook: () => T, fallback: T): T {
  try {
    return hook();
  } catch {
    return fallback;
  }
}

const noAttempt: AttemptObserver = { end() {} };
const noCall: CallObserver = { onAttempt: () => noAttempt, end() {} };

/**
 * `run(work)` of an observer, guarded: `work` runs exactly once and its result (or error) is what
 * comes back, whether the observer's `run` throws before calling it, after it, or never calls it.
 */
function guardedRun<T>(run: (work: () => T) => T, work: () => T): T {
  let done: { value: T } | { error: unknown } | undefined;
  const watched = () => {
    try {
      const value = work();
      done = { value };
      return value;
    } catch (error) {
      done = { error };
      throw error;
    }
  };
  let value: T;
  try {
    value = run(watched);
  } catch {
    // The observer's own failure: the work's outcome stands (run now when the observer never ran it).
    if (done === undefined) return work();
    if ('error' in done) throw done.error;
    return done.value;
  }
  return done === undefined ? work() : value;
}

/** Every hook of `telemetry`, and of the handles it returns, guarded (see the module comment). */
export function guardTelemetry(telemetry: Telemetry): Telemetry {
  const guarded: Telemetry = {
    onCall(info): CallObserver {
      const call = quietly(() => telemetry.onCall(info), noCall);
      return {
        onAttempt(attempt) {
          const observer = quietly(() => call.onAttempt(attempt), noAttempt);
          return { end: (result) => quietly(() => observer.end(result), undefined) };
        },
        end: (result) => quietly(() => call.end(result), undefined),
      };
    },
  };
  const { onWebhook, onBulk, onReconcile } = telemetry;
  if (typeof onWebhook === 'function') {
    guarded.onWebhook = (): WebhookObserver => {
      const delivery = quietly(() => onWebhook.call(telemetry), undefined);
      return {
        run: (work) => (delivery ? guardedRun((w) => delivery.run(w), work) : work()),
        end: (result) => quietly(() => delivery?.end(result), undefined),
      };
    };
  }
  if (typeof onBulk === 'function') {
    guarded.onBulk = (info): BulkObserver => {
      const bulk = quietly(() => onBulk.call(telemetry, info), undefined);
      return {
        run: (work) => (bulk ? guardedRun((w) => bulk.run(w), work) : work()),
        onRow: (status) => quietly(() => bulk?.onRow(status), undefined),
        end: (result) => quietly(() => bulk?.end(result), undefined),
      };
    };
  }
  if (typeof onReconcile === 'function') {
    guarded.onReconcile = (info): ReconcileObserver => {
      const run = quietly(() => onReconcile.call(telemetry, info), undefined);
      return {
        run: (work) => (run ? guardedRun((w) => run.run(w), work) : work()),
        onFinding: (kind) => quietly(() => run?.onFinding(kind), undefined),
        end: (result) => quietly(() => run?.end(result), undefined),
      };
    };
  }
  return guarded;
}
