/**
 * The one seam between the webhook handlers and whatever keeps an event's effect from running twice.
 * The handler core verifies a delivery, then hands the event and its effect (the merchant's
 * `onEvent`) to a {@link WebhookInbox}, and answers with the status the inbox's
 * {@link WebhookDeliveryResult} names. A dedupe store is adapted to this seam (./dedupe-inbox.ts);
 * the Postgres inbox (`payments-sdk/postgres`) implements it with a transaction. Nothing here knows a
 * database driver.
 *
 * @module
 */
import type { WebhookEvent } from './events.js';

/**
 * What became of one delivery:
 * - `handled`: the effect ran and is recorded (or nothing wanted the event), answered 200;
 * - `duplicate`: an earlier delivery of the event ran the effect (200), or is still running it (409);
 * - `refused`: the delivery is not a valid one from the service (400, 405, 413);
 * - `failed`: the effect threw (500), the endpoint is misconfigured (500), or the store or database
 *   failed or did not answer in time (503). The service delivers the event again later.
 */
export type WebhookOutcome = 'handled' | 'duplicate' | 'refused' | 'failed';

/** What a {@link WebhookInbox} made of one event: the outcome, the status to answer, and why. */
export interface WebhookDeliveryResult {
  /** The outcome, for logs and telemetry. */
  outcome: 'handled' | 'duplicate' | 'failed';
  /**
   * The status to answer: 200 (handled, or a duplicate already handled), 409 (a duplicate still
   * being handled elsewhere: the service retries), 500 (the effect threw), 503 (the store or database
   * failed or did not answer in time).
   */
  status: 200 | 409 | 500 | 503;
  /** The error behind a status other than 200. */
  error?: unknown;
  /**
   * A failure of the inbox's own bookkeeping that does not change the answer (a dedupe store that
   * could not record a completion, or give a claim back). Reported, never answered.
   */
  bookkeepingError?: unknown;
}

/** The SQL the effect runs in the inbox's transaction, whatever the driver underneath. */
export interface InboxTransaction {
  /**
   * Runs one statement in the delivery's transaction. `$1`, `$2`… placeholders take `params` in
   * order; the answer's `rows` are the rows returned (empty for a statement that returns none).
   */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
}

/** The second argument of `onEvent` (and of each handler in `on`) when the handler has an `inbox`. */
export interface WebhookInboxContext<Tx = InboxTransaction> {
  /**
   * The transaction that records the event. Write your effect through it: it commits together with
   * the record of the event, or rolls back with it.
   */
  tx: Tx;
}

/**
 * Runs each event's effect at most once. `postgresInbox(db)` from `payments-sdk/postgres` is one: it
 * records the event and runs the effect in one transaction of your database. Give it to
 * `webhookHandler({ secret, inbox, onEvent })` or `expressWebhook`.
 */
export interface WebhookInbox<Context = WebhookInboxContext> {
  /**
   * Runs `effect` for `event` unless it already ran for the event's `id`, and says what to answer.
   * Never rejects: every failure is a {@link WebhookDeliveryResult} with its status.
   */
  deliver(event: WebhookEvent, effect: (context: Context) => unknown): Promise<WebhookDeliveryResult>;
}
