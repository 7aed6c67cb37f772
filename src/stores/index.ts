/**
 * `payments-sdk/stores`: where the SDK remembers what was done (which webhook deliveries were
 * handled, which bulk payout rows were sent and with what outcome, which payments reconciliation
 * handled). Pick one store and pass it as `store` to `webhookHandler`, `expressWebhook`,
 * `payouts.createMany` and `payments.reconcile`.
 *
 * ```ts
 * import { fileStore, memoryStore } from 'payments-sdk/stores';
 *
 * const store = memoryStore(); // or fileStore('payments.store') to survive a restart
 * ```
 * Every store implements {@link Store}; docs/stores.md compares them. This entry loads on every
 * runtime: the Node-only stores load `node:` modules when first used.
 * @packageDocumentation
 */
export { type D1Store, type D1StoreOptions, d1Store } from './d1.js';
export { StoreFullError, StoreTimeoutError, StoreUnavailableError } from './errors.js';
export { type FileStore, type FileStoreOptions, fileStore } from './file.js';
export { type MemoryStoreOptions, memoryStore } from './memory.js';
export { type PostgresStore, type PostgresStoreOptions, postgresStore, type StoreTransaction } from './postgres/store.js';
export { type RedisStoreOptions, redisStore } from './redis.js';
export type {
  Store,
  StoreClaim,
  StoreClaimRequest,
  StoreJson,
  StoreJsonObject,
  StoreRecord,
  StoreTransactResult,
} from './store.js';
