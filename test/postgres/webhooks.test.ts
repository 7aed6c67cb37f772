/**
 * Webhook deliveries through `postgresStore` against a real PostgreSQL server, through each driver
 * it accepts (a pg Pool, a single pg Client, a postgres.js sql): deliveries are real signed Requests
 * to a real `webhookHandler`, and the merchant's effect is a row written through `tx`, in the same
 * commit as the record of the delivery.
 */

import { PaymentsClient } from 'payments-sdk';
import { type PostgresStore, postgresStore } from 'payments-sdk/stores';
import { createMockService } from 'payments-sdk/testing';
import { type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { postgresDrivers } from '../helpers/postgres-drivers.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

let server: PostgresServer;
/** The test's own connection, to look at the tables. */
let admin: pg.Pool;

function delivery(body: string): Request {
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
}

function paymentEvent(id: string, uuid: string, type = 'payment.succeeded'): string {
  const body = JSON.parse(eventBody({ id, type })) as { data: Record<string, unknown> };
  return JSON.stringify({ ...body, data: { ...body.data, uuid, status: type === 'payment.failed' ? 'failed' : 'succeeded' } });
}

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await admin.query(sql)).rows;
}

/** Resolves once no other session is inside a transaction: whatever a frozen delivery had sent is committed or rolled back. */
async function serverSettled(): Promise<void> {
  await vi.waitFor(
    async () => {
      const [open] = await rows(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND xact_start IS NOT NULL",
      );
      expect(open?.n).toBe(0);
    },
    { timeout: 10_000, interval: 25 },
  );
}

/** Resolves once `n` sessions wait on a lock (a duplicate's INSERT behind the original's uncommitted row). */
async function lockWaiters(n: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const [waiting] = await rows("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
      expect(waiting?.n).toBe(n);
    },
    { timeout: 10_000, interval: 10 },
  );
}

/** The merchant's effect: one row per run, written in the delivery's transaction. */
const effect = async (event: WebhookEvent, { tx }: { tx: { query: (text: string, params?: unknown[]) => Promise<unknown> } }) => {
  await tx.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id]);
};

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

type Database = Parameters<typeof postgresStore>[0];
const drivers = postgresDrivers.map((driver) => ({ name: driver.name, open: () => driver.open(server.url) }));

describePostgres('webhook deliveries through postgresStore', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url, max: 2 });
    admin.on('error', () => {});
    await admin.query('CREATE TABLE effects (n serial PRIMARY KEY, event_id text NOT NULL)');
  }, 30_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin.query('TRUNCATE effects');
    await admin.query('DROP TABLE IF EXISTS payments_sdk');
  });

  for (const driver of drivers) {
    describe(driver.name, () => {
      let db: Database;
      let close: () => Promise<void>;
      let store: PostgresStore;
      beforeEach(async () => {
        ({ db, close } = await driver.open());
        store = postgresStore(db, { timeoutMs: 1500 });
        await store.migrate();
        return () => close();
      });

      it('records the event and runs onEvent once in one transaction; a duplicate answers 200 without running it', async () => {
        const handle = webhookHandler({ secret: SECRET, store, onEvent: effect });
        const body = paymentEvent('evt_a', 'pay-a');
        expect((await handle(delivery(body))).status).toBe(200);
        const again = await handle(delivery(body));
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual({ received: true, duplicate: true });
        expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_a' }]);
        const recorded = await rows('SELECT key, settled, result FROM payments_sdk');
        expect(recorded.map((r) => [r.key, r.settled])).toEqual([['payment:pay-a:payment.succeeded', true]]);
        expect(JSON.parse(String(recorded[0]?.result))).toMatchObject({ event_id: 'evt_a', type: 'payment.succeeded' });
      });

      it('tx.query takes $1 placeholders and answers { rows, rowCount }', async () => {
        let seen: unknown;
        let count: unknown;
        const handle = webhookHandler({
          secret: SECRET,
          store,
          onEvent: async (_event, { tx }) => {
            seen = (await tx.query<{ sum: number; word: string }>('SELECT $1::int + $2::int AS sum, $3::text AS word', [2, 3, 'ok'])).rows;
            await tx.query('INSERT INTO effects (event_id) VALUES ($1), ($2)', ['q1', 'q2']);
            count = (await tx.query('UPDATE effects SET event_id = event_id WHERE event_id LIKE $1', ['q%'])).rowCount;
          },
        });
        expect((await handle(delivery(paymentEvent('evt_q', 'pay-q')))).status).toBe(200);
        expect(seen).toEqual([{ sum: 5, word: 'ok' }]);
        expect(count).toBe(2);
      });

      it('onEvent throwing rolls back both: 500, nothing recorded, and the retry runs it once', async () => {
        let fail = true;
        const handle = webhookHandler({
          secret: SECRET,
          store,
          onError: () => {},
          onEvent: async (event, context) => {
            await effect(event, context);
            if (fail) throw new Error('merchant bug');
          },
        });
        const body = paymentEvent('evt_b', 'pay-b');
        expect((await handle(delivery(body))).status).toBe(500);
        expect(await rows('SELECT * FROM effects')).toEqual([]);
        expect(await rows('SELECT * FROM payments_sdk')).toEqual([]);
        fail = false;
        expect((await handle(delivery(body))).status).toBe(200);
        expect((await handle(delivery(body))).status).toBe(200);
        expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_b' }]);
      });

      // One pg Client has one connection: the second delivery waits its turn (covered below).
      it.skipIf(driver.name === 'pg Client')(
        'a duplicate arriving while the original is in its transaction waits: 200 once it commits, runs onEvent if it rolls back',
        async () => {
          for (const originalFails of [false, true]) {
            await admin.query('TRUNCATE effects, payments_sdk');
            const inside = deferred();
            const finish = deferred();
            let runs = 0;
            const handle = webhookHandler({
              secret: SECRET,
              store,
              onError: () => {},
              onEvent: async (event, context) => {
                runs += 1;
                await effect(event, context);
                if (runs === 1) {
                  inside.resolve();
                  await finish.promise;
                  if (originalFails) throw new Error('original failed');
                }
              },
            });
            const body = paymentEvent('evt_c', 'pay-c');
            const original = handle(delivery(body));
            await inside.promise;
            const duplicate = handle(delivery(body));
            // The duplicate's INSERT waits on the original's row.
            await lockWaiters(1);
            expect(runs).toBe(1);
            finish.resolve();
            const [first, second] = await Promise.all([original, duplicate]);
            expect([first.status, second.status]).toEqual(originalFails ? [500, 200] : [200, 200]);
            expect(await second.json()).toEqual(originalFails ? { received: true } : { received: true, duplicate: true });
            expect(runs).toBe(originalFails ? 2 : 1);
            expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_c' }]);
          }
        },
      );

      it('a reconciled payment and its late original run once: the final event is unique per payment', async () => {
        const mock = createMockService({ seed: { payments: [{ status: 'succeeded' }] } });
        const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
        const today = mock.now().toISOString().slice(0, 10);
        const findings = [];
        for await (const finding of client.payments.reconcile({ from: today, store, onEvent: effect })) findings.push(finding);
        expect(findings.map((f) => f.kind === 'missed' && f.handled)).toEqual([true]);
        const uuid = findings[0]?.payment.uuid as string;
        const handle = webhookHandler({ secret: SECRET, store, onEvent: effect });
        const late = await handle(delivery(paymentEvent('evt_d', uuid)));
        expect(await late.json()).toEqual({ received: true, duplicate: true });
        // The other final event of another payment still runs.
        expect((await handle(delivery(paymentEvent('evt_e', 'pay-e', 'payment.failed')))).status).toBe(200);
        expect(await rows('SELECT event_id FROM effects ORDER BY n')).toEqual([
          { event_id: `reconciled:${uuid}:payment.succeeded` },
          { event_id: 'evt_e' },
        ]);
        // A second run finds nothing left.
        const again = [];
        for await (const finding of client.payments.reconcile({ from: today, store, onEvent: effect })) again.push(finding);
        expect(again).toEqual([]);
      });

      it('stores the body only with storeBody: true, exactly (\\u0000 and lone surrogates too), and never the secret', async () => {
        const handle = webhookHandler({ secret: SECRET, store, storeBody: true, onEvent: effect });
        const body = JSON.parse(paymentEvent('evt_f', 'pay-f')) as { data: Record<string, unknown> };
        body.data.note = 'nul \u0000, lone \ud800';
        expect((await handle(delivery(JSON.stringify(body)))).status).toBe(200);
        const [row] = await rows("SELECT result FROM payments_sdk WHERE key = 'payment:pay-f:payment.succeeded'");
        expect(JSON.parse(String(row?.result)).event).toEqual(body);
        const plain = webhookHandler({ secret: SECRET, store, onEvent: effect });
        expect((await plain(delivery(paymentEvent('evt_f2', 'pay-f2')))).status).toBe(200);
        const [bare] = await rows("SELECT result FROM payments_sdk WHERE key = 'payment:pay-f2:payment.succeeded'");
        expect(JSON.parse(String(bare?.result)).event).toBeUndefined();
        const dump = JSON.stringify(await rows('SELECT * FROM payments_sdk'));
        expect(dump).not.toContain(SECRET);
        expect(dump).not.toContain('whsec_');
      });

      it('a database that does not answer (SIGSTOP) gives 503 within the bound, and nothing is recorded once it answers again', async () => {
        const bounded = postgresStore(db, { timeoutMs: 600 });
        const errors: unknown[] = [];
        const handle = webhookHandler({ secret: SECRET, store: bounded, onEvent: effect, onError: (error) => errors.push(error) });
        // Warm: the pool has an open connection, so the freeze hits mid-transaction, not at connect.
        expect((await handle(delivery(paymentEvent('evt_warm', 'pay-warm')))).status).toBe(200);
        server.pause();
        const started = Date.now();
        let response: Response;
        try {
          response = await handle(delivery(paymentEvent('evt_g', 'pay-g')));
        } finally {
          server.resume();
        }
        const elapsed = Date.now() - started;
        expect(response.status).toBe(503);
        expect(elapsed).toBeLessThan(1500);
        expect(String((errors[0] as Error).message)).toMatch(/did not finish the transaction within 600 ms/);
        // Once the server answers again, whatever it had read is rolled back.
        await serverSettled();
        expect(await rows("SELECT key FROM payments_sdk WHERE key = 'payment:pay-g:payment.succeeded'")).toEqual([]);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_g'")).toEqual([]);
        // And the store works again: the service's retry is handled once.
        expect((await handle(delivery(paymentEvent('evt_g', 'pay-g')))).status).toBe(200);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_g'")).toEqual([{ event_id: 'evt_g' }]);
      });

      it('a database frozen as the COMMIT is sent: 503, an error that does not claim a rollback, and the effect runs once in all', async () => {
        const bounded = postgresStore(db, { timeoutMs: 600 });
        const errors: unknown[] = [];
        let runs = 0;
        const handle = webhookHandler({
          secret: SECRET,
          store: bounded,
          onError: (error) => errors.push(error),
          onEvent: async (event, context) => {
            runs += 1;
            await effect(event, context);
            // The first COMMIT reaches a server that reads it only once it runs again.
            if (runs === 1) server.pause();
          },
        });
        let response: Response;
        try {
          response = await handle(delivery(paymentEvent('evt_c', 'pay-c')));
        } finally {
          server.resume();
        }
        expect(response.status).toBe(503);
        expect(String((errors[0] as Error).message)).toMatch(/did not confirm the COMMIT within 600 ms: the transaction committed if/);
        await serverSettled();
        // Committed or rolled back, the two tables agree; the service's retry completes it once.
        const recorded = await rows("SELECT key FROM payments_sdk WHERE key = 'payment:pay-c:payment.succeeded' AND settled");
        expect((await rows("SELECT event_id FROM effects WHERE event_id = 'evt_c'")).length).toBe(recorded.length);
        // A single Client's connection may be ended by the server as it resumes (its idle timeout):
        // only a pool gets a fresh connection for the retry.
        if (driver.name === 'pg Client') {
          expect(runs).toBe(1);
          return;
        }
        expect((await handle(delivery(paymentEvent('evt_c', 'pay-c')))).status).toBe(200);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_c'")).toEqual([{ event_id: 'evt_c' }]);
        expect(runs).toBe(recorded.length === 1 ? 1 : 2);
      });

      it('a database frozen while onEvent runs: 503 within the bound, the effect rolled back', async () => {
        const bounded = postgresStore(db, { timeoutMs: 600 });
        const handle = webhookHandler({
          secret: SECRET,
          store: bounded,
          onError: () => {},
          onEvent: async (event, context) => {
            await effect(event, context);
            server.pause();
            await context.tx.query('SELECT 1');
          },
        });
        const started = Date.now();
        let response: Response;
        try {
          response = await handle(delivery(paymentEvent('evt_h', 'pay-h')));
        } finally {
          server.resume();
        }
        expect(response.status).toBe(503);
        expect(Date.now() - started).toBeLessThan(1500);
        await serverSettled();
        expect(await rows("SELECT key FROM payments_sdk WHERE key = 'payment:pay-h:payment.succeeded'")).toEqual([]);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_h'")).toEqual([]);
      });
    });
  }

  it('a single pg Client runs concurrent deliveries one after another', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const store = postgresStore(client);
      await store.migrate();
      let running = 0;
      let most = 0;
      const handle = webhookHandler({
        secret: SECRET,
        store,
        onEvent: async (event, context) => {
          running += 1;
          most = Math.max(most, running);
          await effect(event, context);
          await new Promise((resolve) => setTimeout(resolve, 20));
          running -= 1;
        },
      });
      const bodies = Array.from({ length: 6 }, (_, i) => paymentEvent(`evt_k${i}`, `pay-k${i}`));
      const answers = await Promise.all([...bodies, ...bodies].map((body) => handle(delivery(body))));
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
      expect(most).toBe(1);
      expect(Number((await rows('SELECT count(*) AS n FROM effects'))[0]?.n)).toBe(6);
    } finally {
      await client.end();
    }
  });

  it('a database that cannot be reached gives 503 within the bound, for each driver', async () => {
    const url = 'postgres://postgres@127.0.0.1:1/postgres';
    const pool = new pg.Pool({ connectionString: url });
    const sql = postgres(url, { onnotice: () => {} });
    try {
      for (const db of [pool, sql] as Database[]) {
        const handle = webhookHandler({ secret: SECRET, store: postgresStore(db, { timeoutMs: 800 }), onEvent: effect, onError: () => {} });
        const started = Date.now();
        expect((await handle(delivery(paymentEvent('evt_z', 'pay-z')))).status).toBe(503);
        expect(Date.now() - started).toBeLessThan(1500);
      }
    } finally {
      await pool.end();
      await sql.end({ timeout: 1 });
    }
  });
});
