/**
 * Runs an effect at most once per key through a {@link Store}: the one path a webhook delivery and
 * a reconciled payment take. A transactional store runs the effect and records the key in one
 * commit; any other store claims the key under a lease, runs the effect, then settles the key (or
 * releases it when the effect threw, so the next attempt runs it). Every store call is bounded in
 * time, so a store that stops answering costs a 503, never an answer past the service's 10 s wait.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { withinTime } from '../internal/within-time.js';
import type { Store, StoreJsonObject } from './store.js';

/** What became of one effect run through a store, and the status a webhook endpoint answers for it. */
export interface OnceResult {
  /** `handled`: the effect ran now; `duplicate`: it ran before, or runs elsewhere now; `failed`: see `status`. */
  outcome: 'handled' | 'duplicate' | 'failed';
  /**
   * 200 (handled, or already handled), 409 (being handled elsewhere right now: the service retries),
   * 500 (the effect threw), 503 (the store failed or did not answer in time).
   */
  status: 200 | 409 | 500 | 503;
  /** The error behind a status other than 200. */
  error?: unknown;
  /** A store failure after the effect ran (its record could not be written): reported, never answered. */
  bookkeepingError?: unknown;
}

/** How long one plain store call may take before it counts as failed. */
export const STORE_CALL_TIMEOUT_MS = 3000;

/**
 * How long a claim holds while the effect runs, renewed at a third of it: three times the 10 s the
 * service waits for an answer, and shorter than the minute between its attempts, so a retry after a
 * crash finds the key free.
 */
export const EFFECT_LEASE_MS = 30_000;

/** A store call that did not settle in time. */
export class StoreTimeoutError extends PaymentsError {}

/** The error of an effect, kept apart from the store's own so that it answers 500, not 503. */
class EffectError {
  constructor(readonly error: unknown) {}
}

/** One plain store call, sync throws included, bounded in time. */
export function storeCall<T>(store: Store<unknown, unknown>, operation: string, run: () => Promise<T>): Promise<T> {
  return withinTime(
    Promise.resolve().then(run),
    STORE_CALL_TIMEOUT_MS,
    () => new StoreTimeoutError(`The ${store.kind} store's ${operation} did not answer within ${STORE_CALL_TIMEOUT_MS} ms.`),
  );
}

/**
 * Runs `effect` unless `key` is already settled in `store`, and says what to answer. Never rejects:
 * every failure is an {@link OnceResult} with its status. `result` is what the store keeps with the
 * settled key.
 */
export async function handleOnce<Context, Effects>(
  store: Store<Context, Effects>,
  key: string,
  effect: (context: Context) => Effects | Promise<Effects>,
  result: StoreJsonObject,
): Promise<OnceResult> {
  if (store.transact) return transactOnce(store, key, effect, result);
  return claimOnce(store, key, effect as (context: undefined) => unknown, result);
}

async function transactOnce<Context, Effects>(
  store: Store<Context, Effects>,
  key: string,
  effect: (context: Context) => Effects | Promise<Effects>,
  result: StoreJsonObject,
): Promise<OnceResult> {
  const guarded = async (context: Context) => {
    try {
      return await effect(context);
    } catch (error) {
      throw new EffectError(error);
    }
  };
  try {
    // The store bounds the transaction itself (the effect runs inside it); see each store's timeoutMs.
    const done = await (store.transact as NonNullable<typeof store.transact>).call(store, key, guarded, { result });
    if (done.state === 'done') return { outcome: 'handled', status: 200 };
    if (done.state === 'settled') return { outcome: 'duplicate', status: 200 };
    return { outcome: 'duplicate', status: 409, error: beingHandled(key) };
  } catch (error) {
    if (error instanceof EffectError) return { outcome: 'failed', status: 500, error: error.error };
    return { outcome: 'failed', status: 503, error };
  }
}

async function claimOnce(
  store: Store<unknown, unknown>,
  key: string,
  effect: (context: undefined) => unknown,
  result: StoreJsonObject,
): Promise<OnceResult> {
  // This attempt's own claim: its release never drops a claim another attempt made since.
  const owner = globalThis.crypto.randomUUID();
  const claim = Promise.resolve().then(() => store.claim([{ key, owner, leaseMs: EFFECT_LEASE_MS }]));
  try {
    const [answer] = await storeCall(store, 'claim', () => claim);
    if (answer?.state === 'settled') return { outcome: 'duplicate', status: 200 };
    if (answer?.state !== 'claimed') {
      // In flight elsewhere: 409 keeps the service retrying, in case that attempt fails; a 200 would
      // count the event delivered.
      return { outcome: 'duplicate', status: 409, error: beingHandled(key) };
    }
  } catch (error) {
    // A claim that lands after the answer would hold the key for a whole lease: given back.
    if (error instanceof StoreTimeoutError)
      claim.then(([answer]) => (answer?.state === 'claimed' ? store.release(key, owner) : undefined)).catch(() => {});
    return { outcome: 'failed', status: 503, error };
  }
  // An effect that outlives a third of the lease keeps its claim.
  const renewal = setInterval(() => {
    store.renew(key, owner, EFFECT_LEASE_MS).catch(() => {});
  }, EFFECT_LEASE_MS / 3);
  try {
    await effect(undefined);
  } catch (error) {
    clearInterval(renewal);
    const bookkeepingError = await bookkeeping(store, 'release', () => store.release(key, owner));
    return { outcome: 'failed', status: 500, error, bookkeepingError };
  }
  clearInterval(renewal);
  const bookkeepingError = await bookkeeping(store, 'settle', () => store.settle(key, owner, result));
  return { outcome: 'handled', status: 200, bookkeepingError };
}

/** A store call after the effect: its failure (or a claim found lost) is reported, never answered. */
async function bookkeeping(store: Store<unknown, unknown>, operation: 'settle' | 'release', run: () => Promise<boolean>) {
  try {
    if (await storeCall(store, operation, run)) return undefined;
    return new PaymentsError(
      `The ${store.kind} store refused the ${operation}: the claim ran out while the effect ran, and another attempt claimed the key since.`,
    );
  } catch (error) {
    return error;
  }
}

function beingHandled(key: string) {
  return new PaymentsError(`${key} is being handled elsewhere right now; answered 409 so the service retries later.`);
}
