/**
 * A webhook dedupe store on Cloudflare D1, for Workers: durable across restarts and deploys, shared
 * by every isolate and location of the Worker, and atomic (SQLite decides each claim).
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import { claimValue, LEASE_MS, positiveInt, type WebhookDedupeStore } from './dedupe.js';

/**
 * The part of a D1 prepared statement that {@link d1DedupeStore} uses (`D1PreparedStatement` of
 * `@cloudflare/workers-types`). Typed by shape: the SDK imports nothing from Cloudflare.
 */
export interface D1PreparedStatementLike {
  /** Binds the `?` parameters, in order. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs the statement; `meta.changes` counts the rows it inserted, updated or deleted. */
  run(): Promise<{ meta: { changes?: number } }>;
  /** The first row, or `null`. */
  first(): Promise<unknown>;
}

/** The part of a D1 binding (`env.DB`, a `D1Database`) that {@link d1DedupeStore} uses. */
export interface D1DatabaseLike {
  /** Prepares one SQL statement. */
  prepare(query: string): D1PreparedStatementLike;
  /** Runs statements in order, in one implicit transaction, in one round trip. */
  batch(statements: D1PreparedStatementLike[]): Promise<Array<{ meta: { changes?: number } }>>;
}

/** Options of {@link d1DedupeStore}. */
export interface D1DedupeStoreOptions {
  /** The table, created on first use. Letters, digits and `_`. Default `payments_webhook_dedupe`. */
  table?: string;
  /** How long a handled id is remembered, in ms. Default 24 h (the service retries for less). */
  ttlMs?: number;
  /** How long an id stays claimed while `onEvent` runs, in ms. Default 30 s. */
  leaseMs?: number;
}

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A store on Cloudflare D1 for Workers, shared by every isolate of the Worker and kept across
 * restarts and deploys, where the default memory store is per isolate and lost with it.
 *
 * ```ts
 * import { d1DedupeStore, webhookHandler } from 'payments-sdk/webhooks';
 *
 * export default {
 *   fetch: (request: Request, env: { DB: D1Database; PAYMENTS_WEBHOOK_SECRET: string }) =>
 *     webhookHandler({ secret: env.PAYMENTS_WEBHOOK_SECRET, dedupe: d1DedupeStore(env.DB), onEvent })(request),
 * };
 * ```
 *
 * It creates its table (and an index on the expiry) with `CREATE TABLE IF NOT EXISTS` on first use,
 * once per isolate. A claim is one `INSERT … ON CONFLICT(id) DO NOTHING`: the row it inserted, or
 * not (`meta.changes`), decides, so of any number of simultaneous claims on any isolates exactly
 * one wins. The same round trip first deletes the rows whose lease or retention ran out, so the
 * table holds about one day of events. `complete` turns the claim into a handled row kept for
 * `ttlMs`, `release` deletes the in-flight claim of the delivery releasing (its token is kept in
 * the row's state, so a delivery whose claim ran out never deletes a newer one), and a claim whose
 * instance died is free again after `leaseMs`. The handlers bound every call by their
 * `dedupeTimeoutMs`: a D1 that does not answer costs a 503, never an answer past the service's 10 s.
 *
 * Rows hold the event id, a state and an expiry time: no secret, no payload.
 */
export function d1DedupeStore(db: D1DatabaseLike, options: D1DedupeStoreOptions = {}): WebhookDedupeStore {
  if (db === null || typeof db !== 'object' || typeof db.prepare !== 'function' || typeof db.batch !== 'function') {
    throw new PaymentsError('d1DedupeStore: pass a D1 database binding (env.DB in a Worker, declared under d1_databases in wrangler).');
  }
  // Every bad option is named at once.
  const problems: string[] = [];
  const table = options.table ?? 'payments_webhook_dedupe';
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    problems.push('table must be a name of letters, digits and _ (not starting with a digit), at most 63 long');
  }
  const checked = (value: unknown, fallback: number, name: string): number => {
    try {
      return positiveInt(value, fallback, name);
    } catch (error) {
      problems.push((error as Error).message.replace(/\.$/, ''));
      return fallback;
    }
  };
  const ttlMs = checked(options.ttlMs, DAY_MS, 'ttlMs');
  const leaseMs = Math.min(checked(options.leaseMs, LEASE_MS, 'leaseMs'), ttlMs);
  if (problems.length > 0) throw new PaymentsError(`d1DedupeStore: ${problems.join('; ')}.`);

  let ready: Promise<unknown> | undefined;
  const ensureTable = () => {
    ready ??= db
      .batch([
        db.prepare(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, state TEXT NOT NULL, expires_at INTEGER NOT NULL)`),
        db.prepare(`CREATE INDEX IF NOT EXISTS ${table}_expires_at ON ${table} (expires_at)`),
      ])
      .catch((error: unknown) => {
        // Tried again by the next call: a D1 that was briefly unreachable does not stay broken.
        ready = undefined;
        throw error;
      });
    return ready;
  };

  return {
    async claim(id, token) {
      await ensureTable();
      const now = Date.now();
      const [, inserted] = await db.batch([
        db.prepare(`DELETE FROM ${table} WHERE expires_at <= ?`).bind(now),
        db
          .prepare(`INSERT INTO ${table} (id, state, expires_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING`)
          .bind(id, claimValue(token), now + leaseMs),
      ]);
      return inserted?.meta.changes === 1;
    },
    async release(id, token) {
      await ensureTable();
      // Without a token, the id's claim in flight, whoever made it; never a handled id.
      const release =
        token === undefined
          ? db.prepare(`DELETE FROM ${table} WHERE id = ? AND state <> 'done'`).bind(id)
          : db.prepare(`DELETE FROM ${table} WHERE id = ? AND state = ?`).bind(id, claimValue(token));
      await release.run();
    },
    async complete(id) {
      await ensureTable();
      await db
        .prepare(
          `INSERT INTO ${table} (id, state, expires_at) VALUES (?, 'done', ?) ` +
            `ON CONFLICT(id) DO UPDATE SET state = 'done', expires_at = excluded.expires_at`,
        )
        .bind(id, Date.now() + ttlMs)
        .run();
    },
    async isComplete(id) {
      await ensureTable();
      const row = await db
        .prepare(`SELECT 1 AS done FROM ${table} WHERE id = ? AND state = 'done' AND expires_at > ?`)
        .bind(id, Date.now())
        .first();
      return row !== null && row !== undefined;
    },
  };
}
