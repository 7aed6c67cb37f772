/**
 * `payments-sdk db schema`, run as the built bin: the SQL it prints is the SQL
 * `postgresStore(db).schemaSql()` gives and `migrate()` runs; it creates the store's table on a
 * real PostgreSQL, which the store then uses, and runs again harmlessly.
 */

import { postgresStore } from 'payments-sdk/stores';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { runCli } from './support.js';

describe('payments-sdk db schema', () => {
  it('prints the same SQL as schemaSql(), for the default table or --table, and as JSON with --json', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' });
    try {
      const printed = await runCli(['db', 'schema', '--table', 'shop.payments_store']);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toBe(postgresStore(pool, { table: 'shop.payments_store' }).schemaSql());
      const json = await runCli(['--json', 'db', 'schema']);
      expect(JSON.parse(json.stdout)).toEqual({ table: '"public"."payments_sdk"', sql: postgresStore(pool).schemaSql() });
    } finally {
      await pool.end();
    }
  });

  it('refuses a table name that is not a plain identifier, and a store that is not Postgres: exit 2, nothing printed', async () => {
    const result = await runCli(['db', 'schema', '--table', 'orders; DROP TABLE orders']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--table: /);
    const redis = await runCli(['db', 'schema'], { PAYMENTS_STORE_URL: 'redis://:secret-pw@127.0.0.1:6379' });
    expect(redis.code).toBe(2);
    expect(redis.stderr).toContain('PAYMENTS_STORE_URL names a redis store: only a Postgres store has a schema to print.');
    expect(redis.stderr).not.toContain('secret-pw');
  });
});

describePostgres('payments-sdk db schema on a real PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 30_000);
  afterAll(() => server?.stop());

  it("creates the store's table, which the store then uses, and can run again", async () => {
    const { stdout } = await runCli(['db', 'schema']);
    const pool = new pg.Pool({ connectionString: server.url });
    try {
      await pool.query(stdout);
      await pool.query(stdout);
      const store = postgresStore(pool);
      const [claim] = await store.claim([{ key: 'webhook:evt_1', owner: 'a', leaseMs: 1000 }]);
      expect(claim?.state).toBe('claimed');
      expect(await store.settle('webhook:evt_1', 'a', { ok: true })).toBe(true);
      expect((await store.read(['webhook:evt_1']))[0]).toMatchObject({ settled: true, result: { ok: true } });
    } finally {
      await pool.end();
    }
  });
});
