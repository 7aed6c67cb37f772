/**
 * Which key of a store a webhook delivery is remembered under, and the memory store that handlers
 * share when they are given none.
 *
 * @module
 */

import { type OnceKeys, paymentKey } from '../stores/handle-once.js';
import { memoryStore } from '../stores/memory.js';
import type { Store } from '../stores/store.js';
import { storeKey } from '../stores/store.js';
import type { WebhookEvent } from './events.js';

/** The event types whose record reconciliation looks up by payment. */
const PAYMENT_FINAL_TYPES: ReadonlySet<string> = new Set(['payment.succeeded', 'payment.failed']);

/**
 * The keys of `event`: its `id` (`webhook:<id>`), and for a payment's final event the key
 * reconciliation knows it by (`payment:<uuid>:<type>`), so that a delivery and a reconciliation of
 * the same payment run the effect once between them. `scope` keeps endpoints apart in a store they
 * share.
 */
export function deliveryKeys(event: WebhookEvent, scope?: string): OnceKeys {
  const scoped = scope === undefined ? [] : [scope];
  const key = storeKey('webhook', ...scoped, event.id);
  const uuid = (event.data as { uuid?: unknown } | undefined)?.uuid;
  if (!PAYMENT_FINAL_TYPES.has(event.type) || typeof uuid !== 'string') return { key };
  return { key, payment: paymentKey(uuid, event.type, scope) };
}

/** The store of the handlers given none: one per process or isolate, bounded by keys, never by endpoints. */
let shared: Store | undefined;
/** One short scope per endpoint (its secrets): the secrets themselves never enter a key. */
const scopes = new Map<string, string>();

/**
 * The memory store every handler of this process shares, and the scope of the endpoint with
 * `secrets` in it: a handler built per request (a Worker builds it inside `fetch`) finds the
 * deliveries the previous ones handled, and two endpoints never mix.
 */
export function sharedMemoryStore(secrets: readonly string[]): { store: Store; scope: string } {
  shared ??= memoryStore();
  const endpoint = [...secrets].sort().join('\n');
  let scope = scopes.get(endpoint);
  if (scope === undefined) {
    scope = `e${scopes.size + 1}`;
    scopes.set(endpoint, scope);
  }
  return { store: shared, scope };
}
