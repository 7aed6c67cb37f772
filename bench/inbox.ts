/**
 * `npm run bench:inbox`: webhook deliveries per second through `postgresStore`, beside a floor
 * written by hand on the same database, on the BUILT package. Not part of `npm test`.
 *
 * - One real PostgreSQL server (test/helpers/postgres.ts, started here), one pg Pool of 4.
 * - 4 concurrent senders, each delivering distinct events one after another.
 * - The floor: per delivery, one transaction on a pooled client: `INSERT … ON CONFLICT DO NOTHING`
 *   of the event id, then the merchant's write (a row in `effects`), then COMMIT.
 * - The store, two ways: `store.transact(key, effect)` (the same database work, through the SDK),
 *   and the whole `webhookHandler({ store })` on a signed Request (verification included), beside a
 *   route written by hand: the Request's body read, `verifyWebhook`, the floor, a JSON Response.
 * - Interleaved rounds, the order rotated each round; a ratio is the median of the per-round ratios.
 *   Goal: the store at ≥ 0.9 × the floor.
 *
 *   BENCH_QUICK=1   fewer rounds (a smoke run)       PG_BINDIR=…   where initdb and postgres are
 */
import os from 'node:os';
import { postgresStore } from 'payments-sdk/stores';
import { signWebhookPayload, verifyWebhook, webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import { median } from 'simple-statistics';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 2 : 7;
const PER_SENDER = QUICK ? 50 : 250;
const SENDERS = 4;
const SECRET = 'whsec_bench_inbox_0123456789abcdef';
const { benchPayment } = (await import(new URL('./fixtures.ts', import.meta.url).href)) as typeof import('./fixtures.js');

const { startBenchPostgres } = (await import(
  new URL('./postgres-server.ts', import.meta.url).href
)) as typeof import('./postgres-server.js');
const server = await startBenchPostgres();
const pool = new pg.Pool({ connectionString: server.url, max: SENDERS });
// The server stopping at the end ends connections the pool is still closing: not a failure of the run.
pool.on('error', () => {});

try {
  await pool.query('CREATE TABLE effects (n bigserial PRIMARY KEY, event_id text NOT NULL)');
  await pool.query('CREATE TABLE floor_inbox (event_id text PRIMARY KEY)');
  const store = postgresStore(pool);
  await store.migrate();
  const handler = webhookHandler({
    secret: SECRET,
    store,
    onEvent: async (event, { tx }) => {
      await tx.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id]);
    },
  });

  let sequence = 0;
  const eventOf = (id: string) => ({ id, type: 'payment.succeeded' as const, data: { ...benchPayment(sequence), uuid: `pay-${id}` } });

  /** The floor: the transaction a merchant writes by hand. */
  const floor = async (id: string) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const recorded = await client.query('INSERT INTO floor_inbox (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [id]);
      if (recorded.rowCount === 1) await client.query('INSERT INTO effects (event_id) VALUES ($1)', [id]);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  };

  /** A delivery as the service sends it (signing is on both sides of the comparison alike). */
  const signed = async (id: string) => {
    const body = JSON.stringify(eventOf(id));
    return { body, headers: { 'content-type': 'application/json', 'x-service-signature': await signWebhookPayload(body, SECRET) } };
  };

  const sides: Record<string, (id: string) => Promise<void>> = {
    floor,
    'store.transact': async (id) => {
      const result = await store.transact(`webhook:${id}`, ({ tx }) => tx.query('INSERT INTO effects (event_id) VALUES ($1)', [id]));
      if (result.state !== 'done') throw new Error(`the store answered ${result.state}`);
    },
    // A route written by hand: read the Request's raw body, verify, the floor's transaction, answer.
    'verify + floor': async (id) => {
      const { body, headers } = await signed(id);
      const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
      const event = await verifyWebhook({ payload: await request.arrayBuffer(), headers: request.headers, secret: SECRET });
      await floor(event.id);
      const response = Response.json({ received: true });
      if (response.status !== 200) throw new Error('unreachable');
    },
    'webhookHandler + store': async (id) => {
      const { body, headers } = await signed(id);
      const response = await handler(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers }));
      if (response.status !== 200) throw new Error(`handler answered ${response.status}`);
    },
  };
  const names = Object.keys(sides);

  /** Deliveries per second of one side: SENDERS senders, PER_SENDER distinct events each. */
  const rate = async (name: string) => {
    const run = sides[name] as (id: string) => Promise<void>;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        for (let i = 0; i < PER_SENDER; i++) await run(`evt_${name.replace(/\W/g, '')}_${sequence++}`);
      }),
    );
    return (SENDERS * PER_SENDER) / ((performance.now() - started) / 1000);
  };

  // Warm-up: connections opened, statements planned, code optimised.
  for (const name of names) await rate(name);
  const rates: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length] as string);
    for (const name of order) rates[name]?.push(await rate(name));
  }

  const ratio = (side: string, base: string) =>
    median((rates[side] ?? []).map((value, i) => value / ((rates[base] ?? [])[i] ?? Number.NaN)));
  const fmt = (n: number) => n.toFixed(0);
  console.log(
    `\nPostgres store, webhook deliveries: deliveries/s, ${SENDERS} concurrent senders, ${ROUNDS} rounds of ${SENDERS * PER_SENDER}`,
  );
  console.log(`(${os.cpus().length} CPUs, load ${os.loadavg()[0]?.toFixed(1)}; PostgreSQL on 127.0.0.1 without fsync)\n`);
  console.log('| side | median deliveries/s | min–max |');
  console.log('| --- | --- | --- |');
  for (const name of names) {
    const values = rates[name] ?? [];
    console.log(`| ${name} | ${fmt(median(values))} | ${fmt(Math.min(...values))}–${fmt(Math.max(...values))} |`);
  }
  const direct = ratio('store.transact', 'floor');
  const whole = ratio('webhookHandler + store', 'verify + floor');
  console.log(`\nstore.transact / floor: ${direct.toFixed(2)} (goal ≥ 0.90: ${direct >= 0.9 ? 'met' : 'NOT met'})`);
  console.log(`webhookHandler + store / verify + floor: ${whole.toFixed(2)}`);
} finally {
  await pool.end();
  await server.stop();
}
