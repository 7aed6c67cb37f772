/**
 * `postgresStore` against a real PostgreSQL server, through each driver it accepts (a pg Pool, a
 * single pg Client, a postgres.js sql): the store contract, then what Postgres adds: `transact`'s
 * waits and its `{ tx }`, the bounds on both sides (the server's 2 s past the SDK's), a statement
 * given up never landing later, `migrate()` safe from many callers and under live traffic, one
 * spelling per table, and a database that cannot be reached.
 */
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreTimeoutError, StoreUnavailableError } from '../../src/stores/errors.js';
import type { PostgresDatabase } from '../../src/stores/postgres/driver.js';
import { type PostgresStore, postgresStore, type StoreTransaction } from '../../src/stores/postgres/store.js';
import { storeKey } from '../../src/stores/store.js';
import { caught } from '../helpers/caught.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { type OpenedDatabase, postgresDrivers } from '../helpers/postgres-drivers.js';
import { describeStoreContract } from '../helpers/store-contract.js';

let server: PostgresServer;
/** The test's own connection, to look at the tables. */
let admin: pg.Pool;
let tables = 0;
const LONG = 60_000;

type Opened = OpenedDatabase;
const drivers = postgresDrivers.map((driver) => ({ name: driver.name, open: () => driver.open(server.url) }));

/** The merchant's effect in the contract's transact cases: a row written through `tx`. */
const harness = {
  effect:
    (tag: string) =>
    async ({ tx }: { tx: StoreTransaction }) => {
      await tx.query('INSERT INTO effects (tag) VALUES ($1)', [tag]);
    },
  count: async (tag: string) => Number((await admin.query('SELECT count(*) AS n FROM effects WHERE tag = $1', [tag])).rows[0]?.n),
};

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls `check` until true; fails after 10 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether any session other than the test's waits on a lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
  return rows[0]?.n ?? 0;
}

describePostgres('postgresStore', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url, max: 4 });
    admin.on('error', () => {});
    await admin.query('CREATE TABLE effects (n serial PRIMARY KEY, tag text NOT NULL)');
  }, 30_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  for (const driver of drivers) {
    describeStoreContract<{ tx: StoreTransaction }, unknown>(
      `postgresStore (${driver.name})`,
      async () => {
        const table = `contract_${++tables}`;
        await admin.query('TRUNCATE effects');
        const opened = [await driver.open()];
        const store = postgresStore(opened[0]?.db as PostgresDatabase, { table });
        await store.migrate();
        return {
          store,
          makeSecond: async () => {
            const second = await driver.open();
            opened.push(second);
            return postgresStore(second.db, { table: `public.${table}` });
          },
          cleanup: async () => {
            for (const { close } of opened) await close();
            await admin.query(`DROP TABLE ${table}`);
          },
        };
      },
      { shared: true, transact: harness },
    );
  }

  describe('options', () => {
    it('refuses bad options naming every bad field, and a db that is no driver', async () => {
      const pool = new pg.Pool({ connectionString: server.url });
      try {
        expect(() => postgresStore(pool, { table: 'x; DROP TABLE y', timeoutMs: 0 })).toThrow(
          /table "x; DROP TABLE y" must be letters, digits, _ and \$.*; timeoutMs must be an integer/,
        );
        expect(() => postgresStore(pool, { table: 'a.b.c' })).toThrow(/must be a name or schema.name/);
        expect(() => postgresStore(pool, { table: '1t' })).toThrow(/table "1t" must be/);
        expect(() => postgresStore(pool, { table: 't'.repeat(64) })).toThrow(/at most 63 bytes/);
        expect(() => postgresStore(pool, { table: 't'.repeat(63) })).not.toThrow();
        expect(() => postgresStore(pool, { table: '"t"x' })).toThrow(/must be/);
        expect(() => postgresStore(pool, { table: 'a.t', schema: 'b' })).toThrow(/table names schema "a" but schema is "b"/);
        expect(() => postgresStore({} as PostgresDatabase)).toThrow(/pass a pg Pool or Client/);
        expect(postgresStore(pool).table).toBe('"public"."payments_sdk"');
        // One spelling: unquoted names fold to lower case as in SQL, quoted ones are kept.
        for (const [table, schema] of [['t'], ['public.t'], ['"t"'], ['PUBLIC.T'], ['"public"."t"'], ['t', 'public'], ['T', 'Public']]) {
          expect(postgresStore(pool, { table, ...(schema && { schema }) }).table).toBe('"public"."t"');
        }
        expect(postgresStore(pool, { table: '"T$1"', schema: 'app' }).table).toBe('"app"."T$1"');
        expect(postgresStore(pool, { table: 'a' }).schemaSql()).toMatch(
          /^-- payments-sdk store[\s\S]*CREATE TABLE IF NOT EXISTS "public"."a" \(/,
        );
      } finally {
        await pool.end();
      }
    });
  });

  describe('migrate', () => {
    beforeEach(async () => {
      await admin.query('DROP TABLE IF EXISTS spelled, live');
    });

    it('is safe from many callers at once, whichever way each spells the table, and any number of times', async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 8 });
      const sql = postgres(server.url, { max: 4, onnotice: () => {} });
      try {
        for (let round = 0; round < 5; round++) {
          await admin.query('DROP TABLE IF EXISTS spelled');
          const spellings = ['spelled', 'public.spelled', '"spelled"', 'PUBLIC.SPELLED'];
          await Promise.all(
            spellings.flatMap((table) => [postgresStore(pool, { table }).migrate(), postgresStore(sql, { table }).migrate()]),
          );
        }
        const columns = await admin.query(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'spelled' ORDER BY ordinal_position",
        );
        expect(columns.rows.map((row) => `${row.column_name} ${row.data_type}`)).toEqual([
          'key text',
          'data text',
          'claims integer',
          'first_at timestamp with time zone',
          'settled boolean',
          'result text',
          'note text',
          'owner text',
          'lease_until timestamp with time zone',
          'updated_at timestamp with time zone',
        ]);
      } finally {
        await pool.end();
        await sql.end({ timeout: 1 });
      }
    });

    it('does not wait for live deliveries: migrate() completes while a transact holds the table', async () => {
      const store = postgresStore(admin, { table: 'live' });
      await store.migrate();
      const inside = deferred();
      const finish = deferred();
      const delivery = store.transact(storeKey('webhook', 'evt_live'), async ({ tx }) => {
        await tx.query('INSERT INTO effects (tag) VALUES ($1)', ['live']);
        inside.resolve();
        await finish.promise;
      });
      let ended = false;
      const end = () => {
        ended = true;
      };
      delivery.then(end, end);
      await inside.promise;
      try {
        const started = Date.now();
        // A SHARE lock (CREATE INDEX, even IF NOT EXISTS) would wait for the delivery to end.
        await postgresStore(admin, { table: 'public.live', timeoutMs: 60_000 }).migrate();
        expect(ended).toBe(false);
        expect(Date.now() - started).toBeLessThan(5000);
      } finally {
        finish.resolve();
      }
      expect(await delivery).toEqual({ state: 'done' });
    });
  });

  for (const driver of drivers) {
    describe(`${driver.name}`, () => {
      let opened: Opened;
      let store: PostgresStore;
      beforeEach(async () => {
        opened = await driver.open();
        store = postgresStore(opened.db, { table: 'behaviour', timeoutMs: 1500 });
        await admin.query('DROP TABLE IF EXISTS behaviour');
        await admin.query('TRUNCATE effects');
        await store.migrate();
        return () => opened.close();
      });

      it('tx.query takes $1 placeholders and answers { rows, rowCount }; the server bounds the transaction 2 s past the SDK', async () => {
        let seen: unknown;
        let bounds: unknown;
        await store.transact(storeKey('webhook', 'evt_q'), async ({ tx }) => {
          seen = await tx.query<{ sum: number; word: string }>('SELECT $1::int + $2::int AS sum, $3::text AS word', [2, 3, 'ok']);
          bounds = (
            await tx.query(
              "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l, current_setting('idle_in_transaction_session_timeout') AS i",
            )
          ).rows[0];
        });
        expect(seen).toEqual({ rows: [{ sum: 5, word: 'ok' }], rowCount: 1 });
        expect(bounds).toEqual({ s: '3500ms', l: '3500ms', i: '3500ms' });
      });

      it('a duplicate transact arriving while the first is in its transaction waits: settled once it commits, runs if it rolls back', async () => {
        if (driver.name === 'pg Client') return; // One connection: the second waits its turn (below).
        for (const firstFails of [false, true]) {
          const key = storeKey('webhook', `evt_wait_${firstFails}`);
          const inside = deferred();
          const finish = deferred();
          let runs = 0;
          const effect = async ({ tx }: { tx: StoreTransaction }) => {
            runs += 1;
            await tx.query('INSERT INTO effects (tag) VALUES ($1)', [key]);
            if (runs === 1) {
              inside.resolve();
              await finish.promise;
              if (firstFails) throw new Error('first failed');
            }
          };
          const first = store.transact(key, effect).catch((error: Error) => error.message);
          await inside.promise;
          const duplicate = store.transact(key, effect);
          // The duplicate's INSERT waits on the first's row.
          await until('the duplicate to wait on the lock', async () => (await lockWaiters()) > 0);
          expect(runs).toBe(1);
          finish.resolve();
          expect(await Promise.all([first, duplicate])).toEqual(
            firstFails ? ['first failed', { state: 'done' }] : [{ state: 'done' }, { state: 'settled' }],
          );
          expect(runs).toBe(firstFails ? 2 : 1);
          expect(await harness.count(key)).toBe(1);
        }
      });

      it('the server ending the session inside the effect (pg_terminate_backend): the call fails, nothing lands, and the store goes on', async () => {
        for (const swallow of [false, true]) {
          const key = storeKey('webhook', `evt_terminated_${swallow}`);
          const error = await caught(
            store.transact(key, async ({ tx }) => {
              await tx.query('INSERT INTO effects (tag) VALUES ($1)', ['terminated']);
              const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
              await admin.query('SELECT pg_terminate_backend($1)', [pid]);
              // The effect that swallows the failure still must not commit anything.
              const next = tx.query('SELECT 1');
              if (swallow) await next.catch(() => {});
              else await next;
            }),
          );
          expect(error).toBeInstanceOf(Error);
          expect(await harness.count('terminated')).toBe(0);
          if (driver.name === 'pg Client') {
            expect(await caught(store.read([key]))).toMatchObject({
              name: 'StoreUnavailableError',
              message: expect.stringMatching(/pg Client's connection has ended.*pass a pg Pool/),
            });
            return;
          }
          await until('the store to answer again', async () => (await store.read([key]).catch(() => undefined)) !== undefined);
          expect(await store.read([key])).toEqual([undefined]);
        }
        expect(await store.transact(storeKey('webhook', 'evt_after'), harness.effect('after'))).toEqual({ state: 'done' });
      });

      it('a claim waiting on a lock gives up within its bound and never lands later', async () => {
        const key = storeKey('bulk', 'b', 'locked');
        expect((await store.claim([{ key, owner: 'A', leaseMs: 1 }]))[0]?.state).toBe('claimed');
        const holder = await admin.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT * FROM behaviour WHERE key = $1 FOR UPDATE', [key]);
          const started = Date.now();
          const error = await caught(store.claim([{ key, owner: 'B', leaseMs: LONG }]));
          expect(error).toBeInstanceOf(StoreTimeoutError);
          expect(error.message).toMatch(/within 1500 ms; it was rolled back/);
          // Before the server's own bound (3500 ms): the SDK gives up first.
          expect(Date.now() - started).toBeLessThan(3400);
        } finally {
          await holder.query('COMMIT');
          holder.release();
        }
        // The abandoned claim's statement, if it ran once the lock was free, was rolled back.
        await until('no session to wait on a lock', async () => (await lockWaiters()) === 0);
        await until('the abandoned transaction to end', async () => {
          const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'");
          return rows[0]?.n === 0;
        });
        expect((await store.read([key]))[0]).toMatchObject({ claims: 1 });
        expect((await store.claim([{ key, owner: 'C', leaseMs: LONG }]))[0]).toMatchObject({
          state: 'claimed',
          record: { claims: 2, owner: 'C' },
        });
      });

      it('a database that stops answering (SIGSTOP): calls fail within their bound, and nothing lands once it answers again', async () => {
        const bounded = postgresStore(opened.db, { table: 'behaviour', timeoutMs: 600 });
        // Warm: a connection is open, so the freeze hits mid-transaction, not at connect.
        await bounded.claim([{ key: 'warm', owner: 'A', leaseMs: LONG }]);
        const key = storeKey('webhook', 'evt_frozen');
        let transact: unknown;
        let claim: unknown;
        const started = Date.now();
        let elapsed = 0;
        try {
          const inside = bounded.transact(key, async ({ tx }) => {
            await tx.query('INSERT INTO effects (tag) VALUES ($1)', ['frozen']);
            server.pause();
            await tx.query('SELECT 1');
          });
          transact = await caught(inside);
          claim = await caught(bounded.claim([{ key: 'frozen-claim', owner: 'A', leaseMs: LONG }]));
          elapsed = Date.now() - started;
        } finally {
          server.resume();
        }
        expect(transact).toBeInstanceOf(StoreTimeoutError);
        expect(claim).toBeInstanceOf(StoreTimeoutError);
        expect(elapsed).toBeLessThan(2 * 600 + 1500);
        if (driver.name === 'pg Client') {
          // A single Client's next call waits its turn behind the ROLLBACK sent on giving up.
          await until('the Client to answer again', async () => (await bounded.read(['warm'])).length === 1);
        }
        await until('the store to answer again', async () => {
          const answer = await bounded.read([key, 'frozen-claim']).catch(() => undefined);
          return answer !== undefined;
        });
        expect(await store.read([key, 'frozen-claim'])).toEqual([undefined, undefined]);
        expect(await harness.count('frozen')).toBe(0);
        expect(await store.transact(key, harness.effect('frozen'))).toEqual({ state: 'done' });
        expect(await harness.count('frozen')).toBe(1);
      });
    });
  }

  it('a single pg Client runs concurrent transacts one after another, never two at once on its connection', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const store = postgresStore(client, { table: 'queued' });
      await store.migrate();
      let running = 0;
      let most = 0;
      const keys = Array.from({ length: 6 }, (_, i) => storeKey('webhook', `evt_k${i}`));
      const results = await Promise.all(
        [...keys, ...keys].map((key) =>
          store.transact(key, async ({ tx }) => {
            running += 1;
            most = Math.max(most, running);
            await tx.query('INSERT INTO effects (tag) VALUES ($1)', ['queued']);
            await new Promise((resolve) => setTimeout(resolve, 10));
            running -= 1;
          }),
        ),
      );
      expect(results.filter((r) => r.state === 'done')).toHaveLength(6);
      expect(results.filter((r) => r.state === 'settled')).toHaveLength(6);
      expect(most).toBe(1);
      expect(await harness.count('queued')).toBe(6);
    } finally {
      await client.end();
      await admin.query('DROP TABLE IF EXISTS queued');
    }
  });

  it('a database that cannot be reached: each call fails within its bound with a store error', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/postgres';
    const pool = new pg.Pool({ connectionString: url });
    pool.on('error', () => {});
    const sql = postgres(url, { onnotice: () => {} });
    try {
      for (const db of [pool, sql] as PostgresDatabase[]) {
        const store = postgresStore(db, { timeoutMs: 800 });
        for (const call of [
          () => store.claim([{ key: 'k', owner: 'A', leaseMs: LONG }]),
          () => store.transact('k', () => {}),
          () => store.migrate(),
        ]) {
          const started = Date.now();
          const error = await caught(call);
          expect(Date.now() - started).toBeLessThan(1500);
          expect(error instanceof StoreUnavailableError || error instanceof StoreTimeoutError, String(error)).toBe(true);
        }
      }
    } finally {
      await pool.end();
      await sql.end({ timeout: 1 });
    }
  });
});
