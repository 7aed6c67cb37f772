/**
 * The one contract behind everything the SDK remembers: which webhook deliveries were handled,
 * which bulk payout rows were sent and with what outcome, which payments reconciliation handled.
 *
 * A store keeps records by key. A key is claimed under a lease by one owner; only that owner
 * settles, renews or releases it, and a stale owner's late write changes nothing; a settled key stays
 * settled. Every time a store compares (lease expiry, a record's age) is read from one clock per
 * store: the database's or Redis's, or this process's for the in-process stores. A worker's own clock
 * never enters a decision, so workers whose clocks disagree still agree on who holds a key.
 *
 * The five stores of `payments-sdk/stores` implement it; the webhook handlers, `payouts.createMany`
 * and `payments.reconcile` are its only callers.
 *
 * @module
 */
import { hexText, isWellFormed } from '../internal/well-formed.js';

/** A JSON value as a store keeps it: what goes in comes back equal (`\u0000` and lone surrogates included). */
export type StoreJson = string | number | boolean | null | StoreJson[] | { [key: string]: StoreJson };

/** A JSON object kept with a key. */
export type StoreJsonObject = { [key: string]: StoreJson };

/** What a store knows of one key. */
export interface StoreRecord {
  /** The key. */
  key: string;
  /** What the first claim gave as `data`; never changed afterwards. */
  data?: StoreJsonObject;
  /** How many claims were granted on this key so far (the first one is 1). */
  claims: number;
  /** How long ago the key was first claimed, in ms, by the store's clock. */
  age: number;
  /** `true` once the key is settled: for good, whatever comes later. */
  settled: boolean;
  /** What `settle` recorded. */
  result?: StoreJsonObject;
  /** What the last `release` recorded (for example the error of a send without a known outcome). */
  note?: StoreJsonObject;
  /** The owner whose lease is live, if any. */
  owner?: string;
}

/** A request to claim one key. */
export interface StoreClaimRequest {
  /** The key, as made by the SDK (a namespace, then the caller's ids). */
  key: string;
  /** Who claims: unique to one delivery, one bulk run, one reconciliation. */
  owner: string;
  /** How long the claim holds against other owners unless renewed, in ms. */
  leaseMs: number;
  /** Kept with the key by its first claim only. */
  data?: StoreJsonObject;
}

/**
 * The answer to one claim:
 * - `claimed`: `owner` holds the key now, under a fresh lease (also when it held it already);
 * - `settled`: the key is settled; nothing was claimed;
 * - `busy`: another owner's lease is live; nothing was claimed.
 */
export interface StoreClaim {
  /** See above. */
  state: 'claimed' | 'settled' | 'busy';
  /** The record after the claim, or as found. */
  record: StoreRecord;
}

/** What {@link Store.transact} did. */
export type StoreTransactResult =
  /** The effect ran and the key is settled, in one commit. */
  | { state: 'done' }
  /** The key was already settled: the effect did not run, or rolled back. */
  | { state: 'settled' }
  /** Another owner holds the key under a live lease outside a transaction; nothing ran. */
  | { state: 'busy' };

/**
 * Where the SDK remembers what was done. Pick one backend of `payments-sdk/stores` and pass it as
 * `store` to `webhookHandler`, `expressWebhook`, `payouts.createMany` and `payments.reconcile`.
 *
 * `Context` and `Effects` are what a transactional store gives the merchant's webhook `onEvent`:
 * `postgresStore` gives `{ tx }`; `d1Store` takes the D1 statements that `onEvent` returns.
 *
 * Every method is atomic across the processes that share the store, and durable when it resolves.
 * Writing one of your own is possible, but run the SDK's contract suite against it first.
 */
export interface Store<Context = undefined, Effects = unknown> {
  /** A short name of the backend for messages and telemetry: `memory`, `file`, `redis`, `d1`, `postgres`. */
  readonly kind: string;
  /** Claims each key for its owner (in order; one answer per request). Each claim is its own atomic step. */
  claim(requests: readonly StoreClaimRequest[]): Promise<StoreClaim[]>;
  /** Extends `owner`'s lease on `key` to `leaseMs` from now; `false` (and nothing changes) when `owner` no longer holds it. */
  renew(key: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Settles `key` with `result` while `owner` still holds it (its lease may have ended, as long as no
   * other owner claimed the key since); `false`, and nothing changes, otherwise or when it is settled.
   */
  settle(key: string, owner: string, result?: StoreJsonObject): Promise<boolean>;
  /** Ends `owner`'s claim without settling, keeping `note`; `false`, and nothing changes, when `owner` no longer holds it. */
  release(key: string, owner: string, note?: StoreJsonObject): Promise<boolean>;
  /** The records of `keys`, in order (`undefined` where there is none), without claiming anything. */
  read(keys: readonly string[]): Promise<Array<StoreRecord | undefined>>;
  /**
   * Transactional stores only: runs `effect` and settles `key` in one commit. A key already settled
   * is not run again; a duplicate arriving while the first is in its transaction waits for it.
   * An error thrown by `effect` rolls everything back and is rethrown as it is.
   */
  transact?(
    key: string,
    effect: (context: Context) => Effects | Promise<Effects>,
    options?: { data?: StoreJsonObject; result?: StoreJsonObject },
  ): Promise<StoreTransactResult>;
  /** Flushes and closes what the store opened itself (never a client or pool it was given). */
  close?(): Promise<void>;
}

/**
 * A key of the SDK's own namespaces: `webhook:<event id>`, `payment:<uuid>:<event type>`,
 * `bulk:<batch id>:<row key>`. Every id is kept exactly: a part that holds `:` (the last part may),
 * `\u0000`, or a lone surrogate (not well-formed UTF-16, which a database's UTF-8 would replace) is
 * written as `~` and the hex of its UTF-16 code units, and a plain part never starts with `~`, so two
 * different ids never share a key, whatever the backend's text encoding does to them.
 */
export function storeKey(namespace: 'webhook' | 'payment' | 'bulk', ...parts: readonly string[]): string {
  return [namespace, ...parts.map((part, i) => encodePart(part, i === parts.length - 1))].join(':');
}

function encodePart(part: string, last: boolean): string {
  const plain = !part.startsWith('~') && !part.includes('\u0000') && (last || !part.includes(':')) && isWellFormed(part);
  return plain ? part : hexText(part);
}
