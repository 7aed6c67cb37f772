/**
 * `payments-sdk db schema`, run as the built bin: the SQL it prints creates the inbox and journal
 * tables on a real PostgreSQL, is the same SQL `postgresInbox(db).schemaSql()` and
 * the journal schema (src/postgres/journal-schema.ts) give, and runs again harmlessly.
 */

import { postgresInbox } from 'payments-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTableName } from '../../src/postgres/inbox-schema.js';
import { DEFAULT_JOURNAL_TABLE, journalNames, journalSchemaSql } from '../../src/postgres/journal-schema.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { runCli } from './support.js';

/** The SQL of the journal table `table`. */
function journalSql(table: string): string {
  const checked = checkTableName(table);
  if (!checked.ok) throw new Error(checked.problem);
  return journalSchemaSql(journalNames(checked.parts));
}

describe('payments-sdk db schema', () => {
  it('prints the inbox and journal tables SQL, the same as schemaSql(), and as JSON with --json', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' });
    const expected = `${postgresInbox(pool, { table: 'shop.inbox' }).schemaSql()}\n${journalSql('shop.payouts_journal')}`;
    const printed = await runCli(['db', 'schema', '--inbox-table', 'shop.inbox', '--journal-table', 'shop.payouts_journal']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(expected);
    const json = await runCli(['--json', 'db', 'schema']);
    expect(JSON.parse(json.stdout)).toEqual({ inbox: postgresInbox(pool).schemaSql(), journal: journalSql(DEFAULT_JOURNAL_TABLE) });
    await pool.end();
  });

  it('refuses a table name that is not a plain identifier: exit 2, nothing printed', async () => {
    const result = await runCli(['db', 'schema', '--inbox-table', 'inbox; DROP TABLE orders']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--inbox-table: table must be a name/);
    const both = await runCli(['db', 'schema', '--inbox-table', '1x', '--journal-table', 'a.b.c']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toMatch(/--inbox-table: table must be a name[\s\S]*--journal-table: table must be a name/);
  });
});

describePostgres('payments-sdk db schema on a real PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 30_000);
  afterAll(() => server?.stop());

  it('creates the inbox table and its index, and the journal table, and can run again', async () => {
    const { stdout } = await runCli(['db', 'schema']);
    const pool = new pg.Pool({ connectionString: server.url });
    try {
      await pool.query(stdout);
      await pool.query(stdout);
      const { rows } = await pool.query("SELECT indexname FROM pg_indexes WHERE tablename = 'payments_inbox' ORDER BY indexname");
      expect(rows.map((row) => row.indexname)).toEqual(['payments_inbox_final_event_key', 'payments_inbox_pkey']);
      const journal = await pool.query("SELECT indexname FROM pg_indexes WHERE tablename = 'payments_bulk_journal'");
      expect(journal.rows.map((row) => row.indexname)).toEqual(['payments_bulk_journal_pkey']);
    } finally {
      await pool.end();
    }
  });
});
