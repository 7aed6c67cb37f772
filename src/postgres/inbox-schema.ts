/**
 * The inbox table: its name, its SQL, and the statements the inbox runs on it. Kept apart from the
 * inbox itself so that `payments-sdk db schema` prints the same SQL that `migrate()` runs.
 *
 * @module
 */

/** The inbox table when none is named. */
export const DEFAULT_INBOX_TABLE = 'payments_inbox';

/** The event types that end a payment: each happens once per payment, so (payment, type) is unique. */
export const FINAL_PAYMENT_EVENTS = ['payment.succeeded', 'payment.failed'] as const;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * `table` checked, or the reason it cannot be used: a name, or `schema.name`, of letters, digits
 * and underscores (quoted in the SQL, so its case is kept).
 */
export function checkTableName(table: unknown): { ok: true; parts: string[] } | { ok: false; problem: string } {
  if (typeof table !== 'string') return { ok: false, problem: `table must be a string, got ${typeof table}` };
  const parts = table.split('.');
  const last = parts[parts.length - 1] ?? '';
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part)) || last.length > 40) {
    return {
      ok: false,
      problem:
        'table must be a name, or schema.name, of letters, digits and underscores (not starting with a digit; the name at most 40 characters)',
    };
  }
  return { ok: true, parts };
}

/** The SQL names of the inbox's table and its index. */
export interface InboxNames {
  /** The table, quoted (and schema-qualified when given so). */
  table: string;
  /** The unique index on the final payment events, quoted, unqualified (it lives beside its table). */
  finalEventIndex: string;
}

/** The quoted names for a table name already checked with {@link checkTableName}. */
export function inboxNames(parts: readonly string[]): InboxNames {
  const quote = (name: string) => `"${name}"`;
  const last = parts[parts.length - 1] ?? DEFAULT_INBOX_TABLE;
  return { table: parts.map(quote).join('.'), finalEventIndex: quote(`${last}_final_event_key`) };
}

/** The inbox table's SQL: idempotent (`IF NOT EXISTS`), so it may run any number of times. */
export function inboxSchemaSql(names: InboxNames): string {
  const types = FINAL_PAYMENT_EVENTS.map((type) => `'${type}'`).join(', ');
  return `-- payments-sdk webhook inbox: one row per event handled, written in the transaction that ran its handler.
CREATE TABLE IF NOT EXISTS ${names.table} (
  event_id    text PRIMARY KEY,                    -- the event's id: a redelivery finds it and is not handled again
  event_type  text NOT NULL,                       -- e.g. payment.succeeded
  resource_id text,                                -- the payment's uuid (payment events), the payout's id (payout events)
  received_at timestamptz NOT NULL DEFAULT now(),
  body        jsonb                                -- the whole event, only with storeBody: true
);
-- A payment ends once, succeeded or failed, so its final event is handled once whatever its id:
-- an event found by reconciliation and the late delivery of the original cannot both run.
CREATE UNIQUE INDEX IF NOT EXISTS ${names.finalEventIndex}
  ON ${names.table} (resource_id, event_type)
  WHERE event_type IN (${types});
`;
}

/** Records an event; affects no row when the event, or its payment's final event, is already recorded. */
export function insertEventSql(names: InboxNames): string {
  return `INSERT INTO ${names.table} (event_id, event_type, resource_id, body) VALUES ($1, $2, $3, $4::text::jsonb) ON CONFLICT DO NOTHING`;
}

/** The payments, among `$1` (a JSON array of `{ resource_id, event_type }`), whose final event is recorded. */
export function handledPaymentsSql(names: InboxNames): string {
  const types = FINAL_PAYMENT_EVENTS.map((type) => `'${type}'`).join(', ');
  return `SELECT DISTINCT i.resource_id FROM jsonb_to_recordset($1::text::jsonb) AS k(resource_id text, event_type text)
JOIN ${names.table} AS i ON i.resource_id = k.resource_id AND i.event_type = k.event_type
WHERE i.event_type IN (${types})`;
}
