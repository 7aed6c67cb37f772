/** `memoryStore()`: the default store, a bounded map in this process's memory. */
import { PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import { positiveInt } from '../internal/positive-int.js';
import { processNow } from './clock.js';
import { RecordTable } from './records.js';
import type { Store } from './store.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /**
   * How many keys are kept at most, claimed and settled together. Default 100 000. When full, the
   * records past their retention go first, then the oldest records that are neither settled nor
   * claimed under a live lease. A live claim and a settled key inside its retention are never
   * dropped: when every slot holds one, a claim of a new key rejects with `StoreFullError` (a
   * webhook endpoint answers 503, and the service delivers again later).
   */
  maxKeys?: number;
  /** How long a record is kept after its last write, in ms. Default 24 hours (the service retries and replays for less). */
  ttlMs?: number;
}

/**
 * The default store: a bounded map in this process's memory, on this process's clock. It serves
 * the handlers, bulk payouts and reconciliations of one process (or one isolate) and is lost with
 * it: behind a load balancer, across restarts, or for a batch you may have to resume, use a store
 * shared by instances (`redisStore`, `d1Store`, `postgresStore`) or `fileStore`.
 *
 * Each call is one step of this process, so a claim is atomic and, within the process, durable when
 * it resolves. A crash between your effect and its settle loses the record, and the delivery or row
 * is handled again.
 *
 * ```ts
 * import { memoryStore } from 'payments-sdk/stores';
 * const store = memoryStore({ maxKeys: 50_000 });
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  if (options === null || typeof options !== 'object') throw new PaymentsError('memoryStore(options): options must be an object.');
  const ttlMs = positiveInt(options.ttlMs, DAY_MS, 'memoryStore: ttlMs');
  const maxKeys = positiveInt(options.maxKeys, 100_000, 'memoryStore: maxKeys');
  const table = new RecordTable('memoryStore', ttlMs, maxKeys);
  return {
    kind: 'memory',
    async claim(requests) {
      return table.claim(requests, processNow()).answers;
    },
    async renew(key, owner, leaseMs) {
      return table.renew(key, owner, leaseMs, processNow()) !== undefined;
    },
    async settle(key, owner, result) {
      return table.settle(key, owner, result, processNow()) !== undefined;
    },
    async release(key, owner, note) {
      return table.release(key, owner, note, processNow()) !== undefined;
    },
    async read(keys) {
      const now = processNow();
      return keys.map((key) => table.read(key, now));
    },
  };
}
