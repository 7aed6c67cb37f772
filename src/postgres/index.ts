/**
 * `payments-sdk/postgres`: exactly-once effects on your own Postgres. {@link postgresInbox} records
 * each webhook event and runs your handler in one transaction.
 *
 * Bring your own driver: a `pg` Pool or Client, or a postgres.js `sql`. This entry imports none
 * (they are optional peer dependencies), and neither `payments-sdk` nor `payments-sdk/webhooks`
 * loads anything of it.
 *
 * ```ts
 * import { postgresInbox } from 'payments-sdk/postgres';
 * ```
 * @packageDocumentation
 */

export type {
  PgClientLike,
  PgPoolClientLike,
  PgPoolLike,
  PgQueryResultLike,
  PostgresDatabase,
  PostgresJsLike,
  PostgresJsResultLike,
} from '../stores/postgres/driver.js';
export type { InboxTransaction, WebhookInboxContext } from '../webhooks/inbox.js';
export { type HandledPaymentKey, type PostgresInbox, type PostgresInboxOptions, postgresInbox } from './inbox.js';
export {
  InboxReconcileError,
  type InboxReconcileOptions,
  type InboxReconcileResult,
  type ReconcileClient,
  type ReconciledPaymentEvent,
} from './inbox-reconcile.js';
export { DatabaseTimeoutError } from './timeout-error.js';
