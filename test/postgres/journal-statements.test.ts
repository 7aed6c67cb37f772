/**
 * How `postgresJournal` meets the database: each step is one statement on its own (one round trip,
 * no transaction around it), bounded in time like every Postgres statement of the SDK; and a claim of
 * a row already done takes no lock, so it is answered `done` even while another session holds the
 * row, and writes nothing.
 */
import { postgresJournal } from 'payments-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkClaimRequest } from '../../src/bulk/journal.js';
import { DatabaseTimeoutError, sqlDriver } from '../../src/postgres/driver.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';

let server: PostgresServer;
let pool: pg.Pool;
let sql: ReturnType<typeof postgres>;

const request = (over: Partial<BulkClaimRequest> = {}): BulkClaimRequest => ({
  batchId: 'b',
  rowKey: 'emp-1',
  idempotencyKey: 'bulk1_k',
  index: 1,
  owner: 'A',
  now: 1_000_000,
  leaseMs: 30_000,
  sentBefore: 0,
  ...over,
});

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
      it('one statement on its own commits by itself, in one round trip; a database that does not answer rejects within the bound, and the connection is dropped', async () => {
        const db = which === 'pg Pool' ? pool : sql;
        const driver = sqlDriver(db, 'test');
        await pool.query('CREATE TABLE IF NOT EXISTS statement_runs (n int)');
        await pool.query('TRUNCATE statement_runs');
        // No BEGIN around it (a transaction sets its own statement_timeout): the statement is its own
        // transaction, seen committed at once.
        const result = await driver.statement(
          5000,
          "INSERT INTO statement_runs VALUES ($1) RETURNING n, current_setting('statement_timeout') AS bound",
          [1],
        );
        expect(result).toEqual({ rows: [{ n: 1, bound: '0' }], rowCount: 1 });
        expect((await pool.query('SELECT count(*)::int AS c FROM statement_runs')).rows[0]).toEqual({ c: 1 });
        server.pause();
        const started = performance.now();
        try {
          const error = await driver.statement(300, 'INSERT INTO statement_runs VALUES ($1)', [2]).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(DatabaseTimeoutError);
          expect((error as Error).message).toMatch(/did not answer within 300 ms: the statement took effect only if the server ran it/);
          expect(performance.now() - started).toBeLessThan(1500);
        } finally {
          server.resume();
        }
        // Once it answers again, the same driver works (the abandoned connection is not handed back mid-statement).
        expect((await driver.statement(5000, 'SELECT count(*)::int AS c FROM statement_runs WHERE n = 1')).rows).toEqual([{ c: 1 }]);
      });
    });
  }
});
