/**
 * A merchant's process for the Postgres store's freeze tests: one `transact` whose effect writes,
 * prints `I`, then freezes past the server's bound: it stops itself (SIGSTOP, STORE_FREEZE=stop; the
 * test resumes it) or blocks its event loop (STORE_FREEZE=block). It prints `F <outcome>` of that
 * transact, then tries another until it succeeds or 15 s pass, printing `N <outcome>`, and exits 0.
 * A process taken down by its driver exits otherwise. Driver: STORE_DRIVER (pool, client, postgres.js).
 */
import pg from 'pg';
import postgres from 'postgres';
import type { PostgresDatabase } from '../../src/stores/postgres/driver.js';
import { postgresStore } from '../../src/stores/postgres/store.js';

const url = process.env.STORE_DATABASE_URL ?? '';
const driver = process.env.STORE_DRIVER;
const timeoutMs = Number(process.env.STORE_TIMEOUT_MS);
/** Past the SDK's bound and the server's (2 s later), with room for the server to act. */
const freezeMs = timeoutMs + 2000 + 1500;

// One connection: the one the server ended must be replaced for the next transact to succeed.
let db: PostgresDatabase;
let close: () => Promise<unknown>;
if (driver === 'postgres.js') {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  db = sql;
  close = () => sql.end({ timeout: 1 });
} else if (driver === 'client') {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  db = client;
  close = () => client.end().catch(() => {});
} else {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  db = pool;
  close = () => pool.end();
}
const store = postgresStore(db, { table: 'child_store', timeoutMs });
const say = (line: string) => process.stdout.write(`${line}\n`);
const outcome = (promise: Promise<{ state: string }>) =>
  promise.then(
    (result) => `done ${result.state}`,
    (error: Error) => `error ${error.name} ${error.message}`,
  );

const first = await outcome(
  store.transact('k1', async ({ tx }) => {
    await tx.query('INSERT INTO child_effects (key) VALUES ($1)', ['k1']);
    say('I');
    if (process.env.STORE_FREEZE === 'stop') {
      process.kill(process.pid, 'SIGSTOP');
    } else {
      const until = Date.now() + freezeMs;
      while (Date.now() < until) {
        // The event loop is blocked: nothing of the driver runs.
      }
    }
  }),
);
say(`F ${first}`);

const deadline = Date.now() + 15_000;
let next = '';
do {
  next = await outcome(
    store.transact('k2', async ({ tx }) => {
      await tx.query('INSERT INTO child_effects (key) VALUES ($1)', ['k2']);
    }),
  );
  if (next.startsWith('done') || driver === 'client') break;
  await new Promise((resolve) => setTimeout(resolve, 100));
} while (Date.now() < deadline);
say(`N ${next}`);
await close();
process.exit(0);
