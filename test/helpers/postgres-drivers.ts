/**
 * The three ways a merchant hands the SDK their Postgres, each opened on a test server: a pg Pool,
 * a single pg Client, a postgres.js sql. Tests run their cases once per driver.
 */
import pg from 'pg';
import postgres from 'postgres';
import type { PostgresDatabase } from '../../src/stores/postgres/driver.js';

/** A database handle and how to close it. */
export type OpenedDatabase = { db: PostgresDatabase; close(): Promise<void> };

/** One driver: its name in test titles, and how to open it on the server at `url`. */
export type PostgresDriver = { name: 'pg Pool' | 'pg Client' | 'postgres.js'; open(url: string): Promise<OpenedDatabase> };

export const postgresDrivers: readonly PostgresDriver[] = [
  {
    name: 'pg Pool',
    async open(url) {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      pool.on('error', () => {});
      return { db: pool, close: () => pool.end() };
    },
  },
  {
    name: 'pg Client',
    async open(url) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      return { db: client, close: () => client.end().catch(() => {}) };
    },
  },
  {
    name: 'postgres.js',
    async open(url) {
      const sql = postgres(url, { max: 4, onnotice: () => {} });
      return { db: sql, close: () => sql.end({ timeout: 1 }) };
    },
  },
];
