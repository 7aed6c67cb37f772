/**
 * `client.payments.reconcile({ store, onEvent })` against a real PostgreSQL server and the testing
 * kit: the kit delivers every event to a real `webhookHandler({ store })` and loses 30 % of them;
 * reconciliation runs `onEvent` for exactly the lost ones, the late originals delivered afterwards
 * run nothing, a late original and the reconciliation at the same moment make one effect, a stuck
 * payment is reported stale, and a failing `onEvent` leaves its payment for the next run without
 * stopping this one.
 */
import { type Payment, PaymentsClient, type ReconcileFinding, type ReconcileOptions } from 'payments-sdk';
import { type PostgresStore, postgresStore } from 'payments-sdk/stores';
import { createMockService, type MockDelivery, type MockService } from 'payments-sdk/testing';
import { type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { decidePayments } from '../helpers/reconcile.js';

const T0 = Date.parse('2026-06-01T08:00:00Z');
const DAY = '2026-06-01';

let server: PostgresServer;
let pool: pg.Pool;
let tableNo = 0;

type Context = { tx: { query(text: string, params?: readonly unknown[]): Promise<unknown> } };

/** The merchant's effect: one row per run of `onEvent`, written in the delivery's transaction. */
async function effect(event: Pick<WebhookEvent, 'type' | 'data'>, { tx }: Context): Promise<void> {
  const payment = event.data as Payment;
  await tx.query('INSERT INTO effects (payment_uuid, event_type, reconciled) VALUES ($1, $2, $3)', [
    payment.uuid,
    event.type,
    event.type.startsWith('payment.') && (event as { reconciled?: true }).reconciled === true,
  ]);
}

async function effectsOf(): Promise<Map<string, { runs: number; reconciled: boolean }>> {
  const { rows } = await pool.query<{ payment_uuid: string; runs: number; reconciled: boolean }>(
    'SELECT payment_uuid, count(*)::int AS runs, bool_or(reconciled) AS reconciled FROM effects GROUP BY payment_uuid',
  );
  return new Map(rows.map((r) => [r.payment_uuid, { runs: r.runs, reconciled: r.reconciled }]));
}

/** A shop on the kit whose endpoint is a `webhookHandler` on a fresh store table; 30 % of deliveries lost. */
async function lossyShop(payments: number, onEvent: typeof effect = effect) {
  await pool.query('TRUNCATE effects');
  const store = postgresStore(pool, { table: `store_${++tableNo}` });
  await store.migrate();
  let secret = '';
  const handle = (request: Request) => webhookHandler({ secret, store, onEvent, onError: () => {} })(request);
  const mock = createMockService({ now: T0, webhooks: { endpoint: handle, dropRate: 0.3, seed: 7 } });
  secret = mock.webhookSecret;
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  await decidePayments(client, mock, payments, 4);
  const lost = mock.deliveries.filter((d) => d.dropped);
  return { store, mock, client, handle, lost };
}

const uuidOf = (d: MockDelivery) => (d.event.data as Payment).uuid;

/** One reconciliation run through `store`: its findings, and how many `onEvent` handled. */
async function reconcile(
  client: PaymentsClient,
  store: PostgresStore,
  options: Omit<ReconcileOptions<Context>, 'store' | 'isHandled'> & { onEvent: NonNullable<ReconcileOptions<Context>['onEvent']> },
) {
  const findings: ReconcileFinding[] = [];
  for await (const finding of client.payments.reconcile({ ...options, store })) findings.push(finding);
  const handled = findings.filter((f) => f.kind === 'missed' && f.handled).length;
  const stale = findings.filter((f) => f.kind === 'stale').length;
  return { findings, handled, stale };
}

async function redeliver(mock: MockService, deliveries: MockDelivery[], handle: (r: Request) => Promise<Response>) {
  return Promise.all(
    deliveries.map(async (d) => {
      const response = await mock.deliver(d, handle);
      return { status: response.status, body: await response.text() };
    }),
  );
}

describePostgres('payments.reconcile through postgresStore on a real Postgres', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 8 });
    pool.on('error', () => {});
    await pool.query('CREATE TABLE effects (payment_uuid text NOT NULL, event_type text NOT NULL, reconciled boolean NOT NULL)');
  }, 30_000);

  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('runs onEvent exactly for the lost payments; the late originals, delivered afterwards, run nothing', async () => {
    const { store, mock, client, handle, lost } = await lossyShop(60);
    expect(lost.length).toBeGreaterThan(8);
    expect(lost.length).toBeLessThan(30);
    const before = await effectsOf();
    expect(before.size).toBe(60 - lost.length);
    for (const d of lost) expect(before.has(uuidOf(d))).toBe(false);

    const seen: WebhookEvent[] = [];
    const result = await reconcile(client, store, {
      from: DAY,
      to: DAY,
      onEvent: async (event, context) => {
        seen.push(event as WebhookEvent);
        await effect(event, context);
      },
    });
    expect([result.handled, result.stale]).toEqual([lost.length, 0]);
    expect(new Set(seen.map((e) => `${(e.data as Payment).uuid} ${e.type}`))).toEqual(
      new Set(lost.map((d) => `${uuidOf(d)} ${d.event.type}`)),
    );
    for (const e of seen) {
      expect(e.id).toBe(`reconciled:${(e.data as Payment).uuid}:${e.type}`);
      expect((e as { reconciled?: true }).reconciled).toBe(true);
    }
    const after = await effectsOf();
    expect(after.size).toBe(60);
    for (const [, e] of after) expect(e.runs).toBe(1);
    for (const d of lost) expect(after.get(uuidOf(d))?.reconciled).toBe(true);

    // The originals arrive late, same id and signed body: each is a duplicate, nothing runs.
    const answers = await redeliver(mock, lost, handle);
    for (const a of answers) expect(a).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(await effectsOf()).toEqual(after);
    // A second run finds nothing left.
    expect((await reconcile(client, store, { from: DAY, to: DAY, onEvent: effect })).findings).toEqual([]);
    expect(await effectsOf()).toEqual(after);
  });

  it('the late original and the reconciliation at the same moment: exactly one effect per payment', async () => {
    const slow = async (event: Pick<WebhookEvent, 'type' | 'data'>, context: Context) => {
      // Holds the transaction open a while, so the two runs of a payment overlap.
      await context.tx.query('SELECT pg_sleep(0.03)');
      await effect(event, context);
    };
    const { store, mock, client, handle, lost } = await lossyShop(40, slow);
    const [result, answers] = await Promise.all([
      reconcile(client, store, { from: DAY, to: DAY, onEvent: slow }),
      redeliver(mock, lost, handle),
    ]);
    // Each lost payment is handled once, by one side or the other: the other finds it handled (a
    // payment whose original landed before its page was read is no finding at all).
    for (const a of answers) expect(a.status).toBe(200);
    expect(result.findings.every((f) => f.kind === 'missed' && f.handled)).toBe(true);
    expect(result.findings.length).toBeLessThanOrEqual(lost.length);
    const after = await effectsOf();
    expect(after.size).toBe(40);
    for (const [, e] of after) expect(e.runs).toBe(1);
  });

  it('the one that commits first wins, the other waits on the key; a failed onEvent leaves its payment for the next run', async () => {
    const { store, mock, client, handle, lost } = await lossyShop(12);
    // The order reconciliation will take them in: the first two findings.
    const order: string[] = [];
    for await (const f of client.payments.reconcile({ from: DAY, to: DAY, store })) order.push(f.payment.uuid);
    const first = lost.find((d) => uuidOf(d) === order[0]);
    const second = lost.find((d) => uuidOf(d) === order[1]);
    if (!first || !second) throw new Error('the seed loses at least two deliveries of 12');
    await pool.query('TRUNCATE effects');
    // The reconciliation holds the first payment's transaction until the original is seen waiting.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let failSecond = true;
    const settled = reconcile(client, store, {
      from: DAY,
      to: DAY,
      onEvent: async (event, context) => {
        if (event.data.uuid === uuidOf(first)) {
          entered();
          await held;
        }
        if (event.data.uuid === uuidOf(second) && failSecond) {
          failSecond = false;
          throw new Error('merchant bug');
        }
        await effect(event, context);
      },
    });
    await inside;
    const original = mock.deliver(first, handle);
    // The original's insert waits on the reconciliation's uncommitted row.
    let waiting = 0;
    for (let i = 0; i < 200 && waiting === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      waiting = (await pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rowCount ?? 0;
    }
    expect(waiting).toBe(1);
    release();
    const run = await settled;
    // The second payment's onEvent threw: its finding says so, with the error; the run went on.
    const failed = run.findings.filter((f) => f.kind === 'missed' && !f.handled);
    expect(failed.map((f) => [f.payment.uuid, f.kind === 'missed' && (f.error as Error).message])).toEqual([
      [uuidOf(second), 'merchant bug'],
    ]);
    expect(run.handled).toBe(lost.length - 1);
    expect(await (await original).text()).toBe('{"received":true,"duplicate":true}');
    expect((await effectsOf()).get(uuidOf(first))).toEqual({ runs: 1, reconciled: true });
    expect((await effectsOf()).has(uuidOf(second))).toBe(false);
    // Rerun: the second (rolled back) is handled now, and only it.
    const rerun = await reconcile(client, store, { from: DAY, to: DAY, onEvent: effect });
    expect(rerun.findings.map((f) => f.payment.uuid)).toEqual([uuidOf(second)]);
    expect(rerun.handled).toBe(1);
    const effects = await effectsOf();
    expect(effects.size).toBe(lost.length);
    for (const [, e] of effects) expect(e).toEqual({ runs: 1, reconciled: true });
  });

  it('reports a payment stuck pending as stale and runs nothing for it; bad options are refused', async () => {
    await pool.query('TRUNCATE effects');
    const store = postgresStore(pool, { table: `store_${++tableNo}` });
    await store.migrate();
    const now = Date.now();
    const mock = createMockService();
    mock.seed({
      payments: [
        { uuid: '00000000-0000-4000-8000-0000000057a1', status: 'pending', created_at: new Date(now - 2 * 3_600_000).toISOString() },
        { status: 'pending', created_at: new Date(now - 60_000).toISOString() },
        { status: 'succeeded', created_at: new Date(now - 3_600_000).toISOString() },
      ],
    });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const from = new Date(now - 3 * 3_600_000).toISOString().slice(0, 10);
    const seen: string[] = [];
    const result = await reconcile(client, store, { from, onEvent: (event) => void seen.push(event.data.status) });
    expect([result.handled, result.stale]).toEqual([1, 1]);
    expect(seen).toEqual(['succeeded']);
    await expect(reconcile(client, store, { from: 'yesterday', onEvent: effect })).rejects.toThrow(/from/);
    await expect(reconcile(client, store, { from, onEvent: 'x' } as never)).rejects.toThrow(/onEvent: must be a function/);
  });
});
