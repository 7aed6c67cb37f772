/**
 * The webhook inbox on the merchant's Postgres: each event is recorded and handled in one
 * transaction, so the effect of `onEvent` and the record that it ran commit together or not at all.
 *
 * How one delivery runs: BEGIN; `INSERT … ON CONFLICT DO NOTHING` of the event; when a row was
 * inserted, `onEvent(event, { tx })`; COMMIT. A duplicate inserts no row and is answered 200
 * without running `onEvent`. A duplicate arriving while the original is still in its transaction
 * waits on the original's row: it inserts nothing once the original commits, and inserts (and runs
 * `onEvent`) itself if the original rolls back. `onEvent` throwing rolls both back (500); a process
 * that dies mid-transaction leaves nothing behind, as Postgres rolls back a transaction whose
 * connection is gone.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { migrateSchema, type PostgresDatabase, type SqlSession, sqlDriver } from '../stores/postgres/driver.js';
import type { WebhookEvent } from '../webhooks/events.js';
import type { InboxTransaction, WebhookDeliveryResult, WebhookInbox, WebhookInboxContext } from '../webhooks/inbox.js';
import { type InboxReconcileOptions, type InboxReconcileResult, type ReconcileClient, reconcileThroughInbox } from './inbox-reconcile.js';
import {
  checkTableName,
  DEFAULT_INBOX_TABLE,
  FINAL_PAYMENT_EVENTS,
  handledPaymentsSql,
  inboxNames,
  inboxSchemaSql,
  insertEventSql,
} from './inbox-schema.js';
import { DatabaseTimeoutError } from './timeout-error.js';

/** Options of {@link postgresInbox}. */
export interface PostgresInboxOptions {
  /** The table, or `schema.table`. Default `payments_inbox`. */
  table?: string;
  /**
   * Also store each event's whole body (column `body`, jsonb). Default `false`: only its id, type,
   * resource id and time. The body holds what the service sent about the payment, customer details
   * included: store it only if you mean to keep them.
   */
  storeBody?: boolean;
  /**
   * How long one delivery's whole transaction may take, in ms: connecting, recording the event,
   * `onEvent` and the commit. Default 5000 (the service waits 10 s for an answer). Past it the
   * transaction is abandoned and rolled back, and the delivery answered 503: the service delivers
   * again later. The server is told the same bound (`statement_timeout` and
   * `idle_in_transaction_session_timeout` for the transaction), in case this process stops answering.
   */
  timeoutMs?: number;
}

/** A payment and the final event looked for, as {@link PostgresInbox.handledPayments} takes them. */
export interface HandledPaymentKey {
  /** The payment's `uuid`. */
  resourceId: string;
  /** Its final event type. */
  type: 'payment.succeeded' | 'payment.failed';
}

/**
 * The inbox: give it to `webhookHandler({ secret, inbox, onEvent })` or `expressWebhook`. Its table
 * is created by {@link PostgresInbox.migrate}, or by your own migrations from
 * {@link PostgresInbox.schemaSql} (or `npx payments-sdk db schema`).
 */
export interface PostgresInbox extends WebhookInbox<WebhookInboxContext> {
  /** The table, as the SQL names it (quoted). */
  readonly table: string;
  /**
   * Creates the table and its index when missing (`CREATE … IF NOT EXISTS`). Safe to run any number
   * of times, from several processes at once (they take turns on an advisory lock).
   */
  migrate(): Promise<void>;
  /** The SQL that {@link PostgresInbox.migrate} runs, for your own migration tool. */
  schemaSql(): string;
  /** Resolves the `resourceId`s (payment uuids) of the given pairs whose event of that type is recorded. One call per page. */
  handledPayments(keys: ReadonlyArray<HandledPaymentKey>): Promise<ReadonlySet<string>>;
  /**
   * Finds the payments of a window whose final event this inbox never recorded (the webhook was
   * lost) and runs `onEvent` for each, through the same path as a delivery: one transaction records
   * a made-up event `{ id: 'reconciled:<uuid>:<type>', type, data: payment, reconciled: true }` and
   * runs `onEvent(event, { tx })`. The table's unique index on the payment and its final event type
   * makes the late original delivery of such a payment a duplicate (and the other way round), so
   * `onEvent` runs once per payment even when both arrive at the same moment.
   *
   * ```ts
   * const { handled, stale } = await inbox.reconcile(client, { from: '2026-11-24', to: '2026-11-24', onEvent });
   * ```
   * Payments still pending past `stalePendingAfter` are counted in `stale`, nothing run. When
   * `onEvent` throws (or the database fails) for a payment, its transaction rolls back and the run
   * stops with an {@link InboxReconcileError} holding the count so far; run it again once fixed.
   */
  reconcile(client: ReconcileClient, options: InboxReconcileOptions): Promise<InboxReconcileResult>;
}

const DEFAULT_TIMEOUT_MS = 5000;

/**
 * A webhook inbox on your own Postgres, for effects that happen exactly once. `db` is your `pg` Pool
 * or Client, or your postgres.js `sql` (3.4 or later); the SDK imports no driver.
 *
 * ```ts
 * import pg from 'pg';
 * import { postgresInbox } from 'payments-sdk/postgres';
 * import { webhookHandler } from 'payments-sdk/webhooks';
 *
 * const inbox = postgresInbox(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await inbox.migrate();
 * export const POST = webhookHandler({
 *   inbox,
 *   onEvent: async (event, { tx }) => {
 *     if (event.type === 'payment.succeeded') await tx.query('UPDATE orders SET paid = true WHERE payment_uuid = $1', [event.data.uuid]);
 *   },
 * });
 * ```
 * Given a single `pg` Client, deliveries take turns on it; a Pool runs them side by side. The inbox
 * never stores the webhook secret or the API key, and the event body only with `storeBody: true`.
 */
export function postgresInbox(db: PostgresDatabase, options: PostgresInboxOptions = {}): PostgresInbox {
  const where = 'postgresInbox';
  if (options === null || typeof options !== 'object') throw new PaymentsError(`${where}: options must be an object.`);
  const problems: string[] = [];
  const table = checkTableName(options.table ?? DEFAULT_INBOX_TABLE);
  if (!table.ok) problems.push(table.problem);
  if (options.storeBody !== undefined && typeof options.storeBody !== 'boolean') problems.push('storeBody must be true or false');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
    problems.push('timeoutMs must be an integer number of milliseconds from 1 to 60000');
  }
  if (problems.length > 0 || !table.ok) throw new PaymentsError(`${where}: ${problems.join('; ')}.`);
  const driver = sqlDriver(db, where, (message) => new DatabaseTimeoutError(message));
  const names = inboxNames(table.parts);
  const schema = inboxSchemaSql(names);
  const insert = insertEventSql(names);
  const handled = handledPaymentsSql(names);
  const storeBody = options.storeBody === true;

  const deliver: PostgresInbox['deliver'] = async (event, effect) => {
    let effectError: { error: unknown } | undefined;
    try {
      const ran = await driver.transaction(timeoutMs, async (session) => {
        const recorded = await session.query(insert, [event.id, event.type, resourceIdOf(event), storeBody ? JSON.stringify(event) : null]);
        if (recorded.rowCount === 0) return false;
        try {
          await effect({ tx: transactionOf(session) });
        } catch (error) {
          effectError = { error };
          throw error;
        }
        return true;
      });
      return ran ? { outcome: 'handled', status: 200 } : { outcome: 'duplicate', status: 200 };
    } catch (error) {
      return failure(error, effectError);
    }
  };
  const handledPayments: PostgresInbox['handledPayments'] = async (keys) => {
    const rows = checkKeys(keys);
    if (rows.length === 0) return new Set<string>();
    return driver.transaction(timeoutMs, async (session) => {
      const result = await session.query(handled, [JSON.stringify(rows)]);
      return new Set(result.rows.map((row) => String(row.resource_id)));
    });
  };

  return {
    table: names.table,
    schemaSql: () => schema,
    migrate: () => migrateSchema(driver, names.table, schema),
    deliver,
    handledPayments,
    reconcile: (client, reconcileOptions) => reconcileThroughInbox({ deliver, handledPayments }, client, reconcileOptions),
  };
}

/** The answer when the transaction did not commit: 500 when `onEvent` threw, 503 when the database failed. */
function failure(error: unknown, effectError: { error: unknown } | undefined): WebhookDeliveryResult {
  if (effectError && error === effectError.error) return { outcome: 'failed', status: 500, error };
  const cause =
    error instanceof DatabaseTimeoutError
      ? error
      : new PaymentsError('The webhook inbox could not record the event: the database failed.', { cause: error });
  return { outcome: 'failed', status: 503, error: cause };
}

/** The transaction as `onEvent` sees it: statements only (BEGIN and COMMIT stay the inbox's). */
function transactionOf(session: SqlSession): InboxTransaction {
  return {
    query: <Row>(text: string, params?: readonly unknown[]) => session.query(text, params) as Promise<{ rows: Row[] }>,
  };
}

/** The id of what the event is about: a payment's `uuid`, a payout's `id`; none for other events. */
function resourceIdOf(event: WebhookEvent): string | null {
  const data = event.data as { uuid?: unknown; id?: unknown } | null | undefined;
  if (event.type.startsWith('payment.')) return typeof data?.uuid === 'string' ? data.uuid : null;
  if (event.type.startsWith('payout.')) {
    const id = data?.id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }
  return null;
}

/** The keys as the query takes them; throws naming every bad one. */
function checkKeys(keys: ReadonlyArray<HandledPaymentKey>): Array<{ resource_id: string; event_type: string }> {
  if (!Array.isArray(keys)) throw new PaymentsError('handledPayments: keys must be an array of { resourceId, type }.');
  const bad: number[] = [];
  const rows = keys.map((key, index) => {
    const ok =
      key !== null &&
      typeof key === 'object' &&
      typeof key.resourceId === 'string' &&
      (FINAL_PAYMENT_EVENTS as readonly string[]).includes(key.type);
    if (!ok) bad.push(index);
    return { resource_id: String(key?.resourceId), event_type: String(key?.type) };
  });
  if (bad.length > 0) {
    throw new PaymentsError(
      `handledPayments: keys[${bad.join('], keys[')}] must be { resourceId: string, type: 'payment.succeeded' | 'payment.failed' }.`,
    );
  }
  return rows;
}
