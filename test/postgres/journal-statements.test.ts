/**
 * How `postgresJournal` meets the database: a claim of a row already done takes no lock, so it is
 * answered `done` even while another session holds the row, and writes nothing. Each step runs in a
 * transaction bounded on both sides: given up by the SDK, ended by the server (its statement never
 * lands later), and its connection serves again once the server answers, on pg and postgres.js.
 */
import { postgresJournal } from 'payments-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkClaimRequest } from '../../src/bulk/journal.js';
import { StoreTimeoutError as DatabaseTimeoutError } from '../../src/stores/errors.js';
import { sqlDriver } from '../../src/stores/postgres/driver.js';
import { claimRequest } from '../helpers/bulk.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';

let server: PostgresServer;
let pool: pg.Pool;
let sql: ReturnType<typeof postgres>;

/** A claim whose lease outlasts the test: only the lock decides. */
const request = (over: Partial<BulkClaimRequest> = {}): BulkClaimRequest => claimRequest({ leaseMs: 30_000, ...over });

describePostgres('postgresJournal statements', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
    // One connection: the one abandoned on a timeout must be the one that answers afterwards.
    sql = postgres(server.url, { max: 1, onnotice: () => {} });
  }, 60_000);

  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await pool?.end();
    await server?.stop();
  });

  it('a claim of a row already done answers done while another session holds the row locked, and writes nothing', async () => {
    const journal = postgresJournal(pool, { table: 'done_unlocked' });
    await journal.migrate();
    expect((await journal.claim(request())).state).toBe('claimed');
    await journal.settle('b', 'emp-1', 'A', { status: 'created', at: 1_000_100, payout: { id: 'po_1', status: 'pending' } });
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT * FROM "done_unlocked" WHERE batch_id = 'b' AND row_key = 'emp-1' FOR UPDATE`);
      const before = (await pool.query('SELECT xmin::text, updated_at FROM "done_unlocked"')).rows[0];
      const claim = await journal.claim(request({ owner: 'B' }));
      expect(claim).toMatchObject({ state: 'done', record: { outcome: { status: 'created', payout: { id: 'po_1' } } } });
      // The same row version: no update, not even a row lock's.
      expect((await pool.query('SELECT xmin::text, updated_at FROM "done_unlocked"')).rows[0]).toEqual(before);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    // A row not done, held by another session at that moment, is still skipped: busy, never waited for.
    expect((await journal.claim(request({ rowKey: 'emp-2' }))).state).toBe('claimed');
    await journal.release('b', 'emp-2', 'A');
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM "done_unlocked" WHERE row_key = 'emp-2' FOR UPDATE`);
      expect((await journal.claim(request({ rowKey: 'emp-2', owner: 'B' }))).state).toBe('busy');
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
  });

  for (const which of ['pg Pool', 'postgres.js'] as const) {
    describe(which, () => {
      it('a transaction given up while its statement waits on a lock ends on the server too: the statement never lands later', async () => {
        const driver = sqlDriver(which === 'pg Pool' ? pool : sql, 'test');
        await pool.query('CREATE TABLE IF NOT EXISTS locked_runs (n int)');
        await pool.query('TRUNCATE locked_runs');
        const holder = await pool.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('LOCK TABLE locked_runs IN ACCESS EXCLUSIVE MODE');
          const started = performance.now();
          const error = await driver
            .transaction(300, (session) => session.query('INSERT INTO locked_runs VALUES ($1)', [1]))
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(DatabaseTimeoutError);
          expect(performance.now() - started).toBeLessThan(1500);
          // Held past the server's own bound for the statement.
          await new Promise((resolve) => setTimeout(resolve, 400));
        } finally {
          await holder.query('COMMIT');
          holder.release();
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await pool.query('SELECT count(*)::int AS c FROM locked_runs')).rows[0]).toEqual({ c: 0 });
        // And the connection serves again.
        expect(await driver.transaction(5000, (session) => session.query('SELECT $1::int AS n', [7]))).toMatchObject({ rows: [{ n: 7 }] });
      });

      it('a database that does not answer: the transaction rejects within its bound, and the connection answers again once the server does', async () => {
        const driver = sqlDriver(which === 'pg Pool' ? pool : sql, 'test');
        expect(await driver.transaction(5000, (session) => session.query('SELECT 1 AS one'))).toMatchObject({ rows: [{ one: 1 }] });
        const started = performance.now();
        const error = await driver
          .transaction(300, async (session) => {
            server.pause();
            return session.query('SELECT $1::int AS n', [2]);
          })
          .catch((e: unknown) => e)
          .finally(() => server.resume());
        expect(error).toBeInstanceOf(DatabaseTimeoutError);
        expect(performance.now() - started).toBeLessThan(1500);
        // On a one-connection postgres.js, the abandoned connection is the one that must answer now,
        // never hang. The server may have ended that session meanwhile (its own bound ran out while
        // it was frozen), which the first statement after it may report; then it reconnects.
        const outcomes: unknown[] = [];
        for (let i = 0; i < 3; i++) {
          outcomes.push(await driver.transaction(2000, (session) => session.query('SELECT $1::int AS n', [i])).catch((e: unknown) => e));
        }
        expect(outcomes.filter((o) => o instanceof DatabaseTimeoutError)).toEqual([]);
        expect(outcomes[2]).toMatchObject({ rows: [{ n: 2 }] });
      });
    });
  }
});
