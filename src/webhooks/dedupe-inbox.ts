/**
 * A {@link WebhookDedupeStore} seen through the handlers' one seam, {@link WebhookInbox}: claim the
 * id, run the effect, then complete the id (or release it when the effect threw). Every store call
 * is bounded by `timeoutMs`, so a store that stops answering costs a 503, never an answer past the
 * service's 10 s wait.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { withinTime } from '../internal/within-time.js';
import type { WebhookDedupeStore } from './dedupe.js';
import type { WebhookInbox } from './inbox.js';

/** A dedupe store call that did not settle within the handler's `dedupeTimeoutMs`. */
class DedupeTimeoutError extends PaymentsError {}

/** Adapts `store` to the seam; the effect gets no context (the store holds no transaction). */
export function dedupeInbox(store: WebhookDedupeStore, timeoutMs: number): WebhookInbox<undefined> {
  /** One store call, sync throws included, bounded in time. */
  const call = <T>(operation: string, run: () => Promise<T> | T) =>
    withinTime(
      Promise.resolve().then(run),
      timeoutMs,
      () => new DedupeTimeoutError(`The dedupe store's ${operation} did not answer within ${timeoutMs} ms.`),
    );
  /** A store call after the effect: its failure is reported, never answered. */
  const bookkeeping = async (operation: string, run: () => Promise<void> | undefined) => {
    try {
      await call(operation, run);
      return undefined;
    } catch (error) {
      return error;
    }
  };

  return {
    async deliver(event, effect) {
      const id = event.id;
      // This delivery's own claim: its release never drops a claim another delivery made since.
      const token = globalThis.crypto.randomUUID();
      const claim = Promise.resolve().then(() => store.claim(id, token));
      try {
        if (!(await call('claim', () => claim))) {
          // In flight elsewhere (not yet complete): 409 keeps the service retrying, in case that
          // attempt fails; a 200 would count the event delivered.
          const isComplete = store.isComplete;
          if (isComplete && !(await call('isComplete', () => isComplete.call(store, id)))) {
            return {
              outcome: 'duplicate',
              status: 409,
              error: new PaymentsError(`Webhook event ${id} is already being handled; answered 409 so the service retries later.`),
            };
          }
          return { outcome: 'duplicate', status: 200 };
        }
      } catch (error) {
        // A claim that lands after the answer would hold the id for a whole lease: given back.
        if (error instanceof DedupeTimeoutError) claim.then((won) => (won ? store.release(id, token) : undefined)).catch(() => {});
        return { outcome: 'failed', status: 503, error };
      }
      try {
        await effect(undefined);
      } catch (error) {
        const bookkeepingError = await bookkeeping('release', () => store.release(id, token));
        return { outcome: 'failed', status: 500, error, bookkeepingError };
      }
      const bookkeepingError = store.complete ? await bookkeeping('complete', () => store.complete?.(id)) : undefined;
      return { outcome: 'handled', status: 200, bookkeepingError };
    },
  };
}
