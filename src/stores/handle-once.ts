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
import { StoreTimeoutError } from './errors.js';
import { type Store, type StoreClaim, type StoreJsonObject, storeKey } from './store.js';

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

/** The error of an effect, kept apart from the store's own so that it answers 500, not 503. */
class EffectError {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
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
 * The keys of one effect. `key` is the effect's own (a delivery's event id). `payment`, for a
 * payment's final event, is the key reconciliation knows it by (`payment:<uuid>:<type>`): settled
 * with the effect, so a reconciliation finds the payment handled; and once a reconciliation settled
 * it, a late delivery of the same payment is a duplicate. A transactional store records the effect
 * under `payment` alone, unique per payment and final event.
 */
export interface OnceKeys {
  key: string;
  payment?: string;
}

/**
 * The key of a payment's final event, `payment:<uuid>:<type>`: the one key a delivery records and a
 * reconciliation reads and settles, so that the two agree on what was handled. `scope` keeps the
 * endpoints of one shared default store apart.
 */
export function paymentKey(uuid: string, type: string, scope?: string): string {
  return scope === undefined ? storeKey('payment', uuid, type) : storeKey('payment', scope, uuid, type);
}

/**
 * Runs `effect` unless it already ran (see {@link OnceKeys}), and says what to answer. Never
 * rejects: every failure is an {@link OnceResult} with its status. `result` is what the store keeps
 * with the settled keys.
 */
export async function handleOnce<Context, Effects>(
  store: Store<Context, Effects>,
  keys: OnceKeys,
  effect: (context: Context) => Effects | Promise<Effects>,
  result: StoreJsonObject,
): Promise<OnceResult> {
  if (store.transact) return transactOnce(store, keys.payment ?? keys.key, effect, result);
  return claimOnce(store as Store<unknown, unknown>, keys, effect as (context: unknown) => unknown, result);
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
  keys: OnceKeys,
  effect: (context: undefined) => unknown,
  result: StoreJsonObject,
): Promise<OnceResult> {
  // This attempt's own claim: its release never drops a claim another attempt made since.
  const owner = globalThis.crypto.randomUUID();
  const wanted = keys.payment === undefined || keys.payment === keys.key ? [keys.key] : [keys.key, keys.payment];
  const claim = Promise.resolve().then(() => store.claim(wanted.map((key) => ({ key, owner, leaseMs: EFFECT_LEASE_MS }))));
  /** Gives back whatever this attempt claimed: it runs nothing. */
  const giveBack = (answers: readonly StoreClaim[]) =>
    Promise.all(answers.map((answer, i) => (answer.state === 'claimed' ? store.release(wanted[i] as string, owner) : undefined)));
  let held: string[];
  try {
    const answers = await storeCall(store, 'claim', () => claim);
    const [own, payment] = answers;
    // Handled before: this delivery, or a reconciliation of the same payment.
    const duplicate = own?.state === 'settled' || (payment?.state === 'settled' && payment.record.result?.reconciled === true);
    if (duplicate || own?.state !== 'claimed' || payment?.state === 'busy') {
      if (own?.state === 'settled' && payment?.state === 'claimed') {
        // The event ran before, but its payment key was not recorded then (that write failed):
        // recorded now, so a reconciliation never runs the effect again.
        await storeCall(store, 'settle', () => store.settle(wanted[1] as string, owner, own.record.result ?? result)).catch(() => {});
      } else await storeCall(store, 'release', () => giveBack(answers)).catch(() => {});
      if (duplicate) return { outcome: 'duplicate', status: 200 };
      // In flight elsewhere: 409 keeps the service retrying, in case that attempt fails; a 200 would
      // count the event delivered.
      return { outcome: 'duplicate', status: 409, error: beingHandled(keys.key) };
    }
    // A payment key settled by another delivery of the payment stays as it is.
    held = wanted.filter((_, i) => answers[i]?.state === 'claimed');
  } catch (error) {
    // A claim that lands after the answer would hold the keys for a whole lease: given back.
    if (error instanceof StoreTimeoutError) claim.then(giveBack).catch(() => {});
    return { outcome: 'failed', status: 503, error };
  }
  // An effect that outlives a third of the lease keeps its claim. A renew that throws at once
  // becomes a rejection: nothing may throw out of the timer, where it would end the process.
  const renewal = setInterval(() => {
    for (const key of held)
      Promise.resolve()
        .then(() => store.renew(key, owner, EFFECT_LEASE_MS))
        .catch(() => {});
  }, EFFECT_LEASE_MS / 3);
  try {
    await effect(undefined);
  } catch (error) {
    clearInterval(renewal);
    const bookkeepingError = await bookkeeping(store, 'release', held, (key) => store.release(key, owner));
    return { outcome: 'failed', status: 500, error, bookkeepingError };
  }
  clearInterval(renewal);
  const bookkeepingError = await bookkeeping(store, 'settle', held, (key) => store.settle(key, owner, result));
  return { outcome: 'handled', status: 200, bookkeepingError };
}

/** A store call after the effect, for each key held: its failure (or a claim found lost) is reported, never answered. */
async function bookkeeping(
  store: Store<unknown, unknown>,
  operation: 'settle' | 'release',
  keys: readonly string[],
  run: (key: string) => Promise<boolean>,
) {
  try {
    const done = await storeCall(store, operation, () => Promise.all(keys.map(run)));
    if (done.every(Boolean)) return undefined;
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
