/**
 * The Postgres webhook inbox against a real PostgreSQL server, through each driver it accepts (a pg
 * Pool, a single pg Client, a postgres.js sql): deliveries are real signed Requests to a real
 * `webhookHandler`, and the merchant's effect is a row written through `tx`.
 */

import { type PostgresDatabase, type PostgresInbox, postgresInbox } from 'payments-sdk/postgres';
import { type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
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

/** The merchant's effect: one row per run, written in the inbox's transaction. */
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

type Driver = { name: string; open(): Promise<{ db: PostgresDatabase; close(): Promise<void> }> };
const drivers: Driver[] = [
  {
    name: 'pg Pool',
    async open() {
      const pool = new pg.Pool({ connectionString: server.url, max: 4 });
      pool.on('error', () => {});
      return { db: pool, close: () => pool.end() };
    },
  },
  {
    name: 'pg Client',
    async open() {
      const client = new pg.Client({ connectionString: server.url });
      client.on('error', () => {});
      await client.connect();
      return { db: client, close: () => client.end().catch(() => {}) };
    },
  },
  {
    name: 'postgres.js',
    async open() {
      const sql = postgres(server.url, { max: 4, onnotice: () => {} });
      return { db: sql, close: () => sql.end({ timeout: 1 }) };
    },
  },
];

describePostgres('postgresInbox', () => {
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
    await admin.query('DROP TABLE IF EXISTS payments_inbox');
  });

  it('migrate() creates the documented table, any number of times, from several callers at once', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 8 });
    const sql = postgres(server.url, { max: 4, onnotice: () => {} });
    try {
      await Promise.all([
        ...Array.from({ length: 4 }, () => postgresInbox(pool).migrate()),
        ...Array.from({ length: 4 }, () => postgresInbox(sql).migrate()),
      ]);
      await postgresInbox(pool).migrate();
      const columns = await rows(
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'payments_inbox' ORDER BY ordinal_position",
      );
      expect(columns).toEqual([
        { column_name: 'event_id', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'event_type', data_type: 'text', is_nullable: 'NO' },
        { column_name: 'resource_id', data_type: 'text', is_nullable: 'YES' },
        { column_name: 'received_at', data_type: 'timestamp with time zone', is_nullable: 'NO' },
        { column_name: 'body', data_type: 'jsonb', is_nullable: 'YES' },
      ]);
      const [index] = await rows("SELECT indexdef FROM pg_indexes WHERE indexname = 'payments_inbox_final_event_key'");
      expect(String(index?.indexdef)).toMatch(/UNIQUE INDEX .* \(resource_id, event_type\) WHERE .*payment\.succeeded.*payment\.failed/);
      expect(postgresInbox(pool).schemaSql()).toMatch(/^-- payments-sdk webhook inbox[\s\S]*CREATE TABLE IF NOT EXISTS "payments_inbox"/);
    } finally {
      await pool.end();
      await sql.end({ timeout: 1 });
    }
  });

  it('refuses bad options naming every bad field, and a db that is no driver', () => {
    const pool = new pg.Pool({ connectionString: server.url });
    expect(() => postgresInbox(pool, { table: 'x; DROP TABLE y', storeBody: 'yes' as never, timeoutMs: 0 })).toThrow(
      /table must be a name.*; storeBody must be true or false; timeoutMs must be an integer/,
    );
    expect(() => postgresInbox({} as PostgresDatabase)).toThrow(/pass a pg Pool or Client/);
    void pool.end();
  });

  for (const driver of drivers) {
    describe(driver.name, () => {
      let db: PostgresDatabase;
      let close: () => Promise<void>;
      let inbox: PostgresInbox;
      beforeEach(async () => {
        ({ db, close } = await driver.open());
        inbox = postgresInbox(db, { timeoutMs: 1500 });
        await inbox.migrate();
        return () => close();
      });

      it('records the event and runs onEvent once in one transaction; a duplicate answers 200 without running it', async () => {
        const handle = webhookHandler({ secret: SECRET, inbox, onEvent: effect });
        const body = paymentEvent('evt_a', 'pay-a');
        expect((await handle(delivery(body))).status).toBe(200);
        const again = await handle(delivery(body));
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual({ received: true, duplicate: true });
        expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_a' }]);
        expect(await rows('SELECT event_id, event_type, resource_id, body FROM payments_inbox')).toEqual([
          { event_id: 'evt_a', event_type: 'payment.succeeded', resource_id: 'pay-a', body: null },
        ]);
      });

      it('tx.query takes $1 placeholders and answers { rows }', async () => {
        let seen: unknown;
        const handle = webhookHandler({
          secret: SECRET,
          inbox,
          onEvent: async (_event, { tx }) => {
            seen = (await tx.query<{ sum: number; word: string }>('SELECT $1::int + $2::int AS sum, $3::text AS word', [2, 3, 'ok'])).rows;
          },
        });
        expect((await handle(delivery(paymentEvent('evt_q', 'pay-q')))).status).toBe(200);
        expect(seen).toEqual([{ sum: 5, word: 'ok' }]);
      });

      it('onEvent throwing rolls back both: 500, nothing recorded, and the retry runs it once', async () => {
        let fail = true;
        const handle = webhookHandler({
          secret: SECRET,
          inbox,
          onError: () => {},
          onEvent: async (event, context) => {
            await effect(event, context);
            if (fail) throw new Error('merchant bug');
          },
        });
        const body = paymentEvent('evt_b', 'pay-b');
        expect((await handle(delivery(body))).status).toBe(500);
        expect(await rows('SELECT * FROM effects')).toEqual([]);
        expect(await rows('SELECT * FROM payments_inbox')).toEqual([]);
        fail = false;
        expect((await handle(delivery(body))).status).toBe(200);
        expect((await handle(delivery(body))).status).toBe(200);
        expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_b' }]);
      });

      it('a duplicate arriving while the original is in its transaction waits: 200 once it commits, runs onEvent if it rolls back', async () => {
        if (driver.name === 'pg Client') return; // One connection: the second delivery waits its turn, covered below.
        for (const originalFails of [false, true]) {
          await admin.query('TRUNCATE effects, payments_inbox');
          const inside = deferred();
          const finish = deferred();
          let runs = 0;
          const handle = webhookHandler({
            secret: SECRET,
            inbox,
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
          // The duplicate's INSERT waits on the original's row; give it time to be waiting.
          await new Promise((resolve) => setTimeout(resolve, 150));
          expect(runs).toBe(1);
          finish.resolve();
          const [first, second] = await Promise.all([original, duplicate]);
          expect([first.status, second.status]).toEqual(originalFails ? [500, 200] : [200, 200]);
          expect(await second.json()).toEqual(originalFails ? { received: true } : { received: true, duplicate: true });
          expect(runs).toBe(originalFails ? 2 : 1);
          expect(await rows('SELECT event_id FROM effects')).toEqual([{ event_id: 'evt_c' }]);
        }
      });

      it('a reconciled payment and its late original run once: the final event is unique per payment', async () => {
        const handle = webhookHandler({ secret: SECRET, inbox, onEvent: effect });
        const reconciled = JSON.parse(paymentEvent('reconciled:pay-d:payment.succeeded', 'pay-d')) as WebhookEvent;
        const result = await inbox.deliver(reconciled, (context) => effect(reconciled, context));
        expect(result).toEqual({ outcome: 'handled', status: 200 });
        const late = await handle(delivery(paymentEvent('evt_d', 'pay-d')));
        expect(await late.json()).toEqual({ received: true, duplicate: true });
        // The other final event of another payment, and a non-final event of this one, still run.
        expect((await handle(delivery(paymentEvent('evt_e', 'pay-e', 'payment.failed')))).status).toBe(200);
        expect(await rows('SELECT event_id FROM effects ORDER BY n')).toEqual([
          { event_id: 'reconciled:pay-d:payment.succeeded' },
          { event_id: 'evt_e' },
        ]);
        expect(
          await inbox.handledPayments([
            { resourceId: 'pay-d', type: 'payment.succeeded' },
            { resourceId: 'pay-d', type: 'payment.failed' },
            { resourceId: 'pay-e', type: 'payment.failed' },
            { resourceId: 'pay-x', type: 'payment.succeeded' },
          ]),
        ).toEqual(new Set(['pay-d', 'pay-e']));
        expect(await inbox.handledPayments([])).toEqual(new Set());
        await expect(inbox.handledPayments([{ resourceId: 'p', type: 'payout.paid' as never }])).rejects.toThrow(/keys\[0\]/);
      });

      it('stores the body only with storeBody: true, and never the secret', async () => {
        const storing = postgresInbox(db, { storeBody: true });
        const handle = webhookHandler({ secret: SECRET, inbox: storing, onEvent: effect });
        expect((await handle(delivery(paymentEvent('evt_f', 'pay-f')))).status).toBe(200);
        const [row] = await rows("SELECT body FROM payments_inbox WHERE event_id = 'evt_f'");
        expect(row?.body).toMatchObject({ id: 'evt_f', type: 'payment.succeeded', data: { uuid: 'pay-f' } });
        const dump = JSON.stringify(await rows('SELECT * FROM payments_inbox'));
        expect(dump).not.toContain(SECRET);
        expect(dump).not.toContain('whsec_');
      });

      it('a database that does not answer (SIGSTOP) gives 503 within the bound, and nothing is recorded once it answers again', async () => {
        const bounded = postgresInbox(db, { timeoutMs: 600 });
        const errors: unknown[] = [];
        const handle = webhookHandler({ secret: SECRET, inbox: bounded, onEvent: effect, onError: (error) => errors.push(error) });
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
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await rows("SELECT event_id FROM payments_inbox WHERE event_id = 'evt_g'")).toEqual([]);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_g'")).toEqual([]);
        // And the inbox works again: the service's retry is handled once.
        expect((await handle(delivery(paymentEvent('evt_g', 'pay-g')))).status).toBe(200);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_g'")).toEqual([{ event_id: 'evt_g' }]);
      });

      it('a database frozen as the COMMIT is sent: 503, an error that does not claim a rollback, and the effect runs once in all', async () => {
        const bounded = postgresInbox(db, { timeoutMs: 600 });
        const errors: unknown[] = [];
        let runs = 0;
        const handle = webhookHandler({
          secret: SECRET,
          inbox: bounded,
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
        await new Promise((resolve) => setTimeout(resolve, 300));
        // Committed or rolled back, the two tables agree; the service's retry completes it once.
        const recorded = await rows("SELECT event_id FROM payments_inbox WHERE event_id = 'evt_c'");
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_c'")).toEqual(recorded);
        // A single Client's connection may be ended by the server as it resumes (its idle timeout):
        // only a pool gets a fresh connection for the retry.
        if (driver.name === 'pg Client') return;
        expect((await handle(delivery(paymentEvent('evt_c', 'pay-c')))).status).toBe(200);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_c'")).toEqual([{ event_id: 'evt_c' }]);
        expect(runs).toBe(recorded.length === 1 ? 1 : 2);
      });

      it('a database frozen while onEvent runs: 503 within the bound, the effect rolled back', async () => {
        const bounded = postgresInbox(db, { timeoutMs: 600 });
        const handle = webhookHandler({
          secret: SECRET,
          inbox: bounded,
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
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await rows("SELECT event_id FROM payments_inbox WHERE event_id = 'evt_h'")).toEqual([]);
        expect(await rows("SELECT event_id FROM effects WHERE event_id = 'evt_h'")).toEqual([]);
      });
    });
  }

  it('a single pg Client runs concurrent deliveries one after another', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const inbox = postgresInbox(client);
      await inbox.migrate();
      let running = 0;
      let most = 0;
      const handle = webhookHandler({
        secret: SECRET,
        inbox,
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
      for (const db of [pool, sql] as PostgresDatabase[]) {
        const handle = webhookHandler({ secret: SECRET, inbox: postgresInbox(db, { timeoutMs: 800 }), onEvent: effect, onError: () => {} });
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
