/**
 * `client.payments.reconcile()` against the testing kit: the kit delivers every event to a real
 * `webhookHandler` and loses 30 % of them on purpose; reconciliation must list exactly the lost
 * ones, report stuck payments apart, report a payment refunded, disputed or in a status the SDK does
 * not know whose `payment.succeeded` was never handled, read only the statuses it needs (each page
 * once), and refuse bad options before any request.
 */
import { InvalidParamsError, type Payment, PaymentsClient, type ReconcileFinding } from 'payments-sdk';
import { memoryStore, type Store } from 'payments-sdk/stores';
import { createMockService, type MockService } from 'payments-sdk/testing';
import { webhookHandler } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { decidePayments } from '../helpers/reconcile.js';

const T0 = Date.parse('2026-06-01T08:00:00Z');
const DAY = '2026-06-01';

/** What the merchant's endpoint handled: `payment uuid → event type`. */
type Handled = Map<string, string>;

async function lossyShop(options: { payments: number; dropRate: number; perPage?: number }) {
  const handled: Handled = new Map();
  const store = memoryStore();
  let secret = '';
  const endpoint = (request: Request) =>
    webhookHandler({
      secret,
      store,
      onEvent: (event) => {
        handled.set((event.data as Payment).uuid, event.type);
      },
    })(request);
  const mock = createMockService({ now: T0, webhooks: { endpoint, dropRate: options.dropRate, seed: 42 } });
  secret = mock.webhookSecret;
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  await decidePayments(client, mock, options.payments, 3);
  return { mock, client, handled, store };
}

async function collect(iterable: AsyncIterable<ReconcileFinding>): Promise<ReconcileFinding[]> {
  const out: ReconcileFinding[] = [];
  for await (const finding of iterable) out.push(finding);
  return out;
}

function lostDeliveries(mock: MockService) {
  return mock.deliveries.filter((d) => d.dropped).map((d) => ({ uuid: (d.event.data as Payment).uuid, type: d.event.type }));
}

/** The endpoint's store, counting the keys of each read. */
function countingReads(store: Store): Store & { calls: number[] } {
  const calls: number[] = [];
  return {
    ...store,
    kind: store.kind,
    claim: (requests) => store.claim(requests),
    renew: (...args) => store.renew(...args),
    settle: (...args) => store.settle(...args),
    release: (...args) => store.release(...args),
    calls,
    read(keys) {
      calls.push(keys.length);
      return store.read(keys);
    },
  };
}

describe('payments.reconcile with 30 % of deliveries lost', () => {
  it('lists exactly the payments whose event was lost, each with the event expected (isHandled)', async () => {
    const { mock, client, handled } = await lossyShop({ payments: 120, dropRate: 0.3 });
    const lost = lostDeliveries(mock);
    expect(lost.length).toBeGreaterThan(20);
    expect(lost.length).toBeLessThan(60);
    expect(handled.size).toBe(120 - lost.length);

    const findings = await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: (p) => handled.has(p.uuid) }));
    expect(findings.every((f) => f.kind === 'missed')).toBe(true);
    const got = findings.map((f) => ({ uuid: f.payment.uuid, type: f.expectedEvent }));
    expect(new Set(got.map((g) => `${g.uuid} ${g.type}`))).toEqual(new Set(lost.map((l) => `${l.uuid} ${l.type}`)));
    expect(got).toHaveLength(lost.length);
    for (const f of findings) expect(f.payment.status).toBe(f.expectedEvent === 'payment.succeeded' ? 'succeeded' : 'failed');
  });

  it("the same against the endpoint's store: one read per page, and async isHandled works too", async () => {
    const { mock, client, handled, store } = await lossyShop({ payments: 150, dropRate: 0.3 });
    const lost = new Set(lostDeliveries(mock).map((l) => l.uuid));
    const counted = countingReads(store);
    const viaStore = await collect(client.payments.reconcile({ from: DAY, to: DAY, store: counted }));
    expect(new Set(viaStore.map((f) => f.payment.uuid))).toEqual(lost);
    // 100 succeeded payments: one full page and nothing more; 50 failed: one page.
    expect(counted.calls).toEqual([100, 50]);

    const viaAsync = await collect(
      client.payments.reconcile({ from: DAY, isHandled: async (p) => (await Promise.resolve(handled.get(p.uuid))) !== undefined }),
    );
    expect(new Set(viaAsync.map((f) => f.payment.uuid))).toEqual(lost);
  });

  it('reads only the statuses it needs, within the window, 100 per page, each page once', async () => {
    const { mock, client, handled } = await lossyShop({ payments: 250, dropRate: 0.3 });
    const before = mock.requests.length;
    await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: (p) => handled.has(p.uuid) }));
    const lists = mock.requests.slice(before).map((r) => new URL(r.path, 'http://x').searchParams);
    const asked = lists.map((q) => `${q.get('status')} ${q.get('page') ?? '1'}`);
    // 167 succeeded (2 pages), none refunded or disputed, 83 failed (1 page), then the unsettled
    // statuses (empty); then three counts (one payment per page): canceled, expired, and every status,
    // which match the statuses listed, so the window is not read again.
    expect(asked).toEqual([
      'succeeded 1',
      'succeeded 2',
      'refunded 1',
      'disputed 1',
      'failed 1',
      'pending 1',
      'processing 1',
      'canceled 1',
      'expired 1',
      'null 1',
    ]);
    for (const [i, q] of lists.entries()) {
      expect(q.get('from')).toBe(DAY);
      expect(q.get('to')).toBe(DAY);
      expect(q.get('per_page')).toBe(i < 7 ? '100' : '1');
    }
  });
});

describe('payments.reconcile: stale payments and the window', () => {
  it('reports a payment stuck pending past stalePendingAfter apart, after the missed ones; a younger one is not reported', async () => {
    const now = Date.now();
    const mock = createMockService({
      seed: {
        payments: [
          { uuid: '00000000-0000-4000-8000-000000000001', status: 'pending', created_at: new Date(now - 2 * 3_600_000).toISOString() },
          { uuid: '00000000-0000-4000-8000-000000000002', status: 'pending', created_at: new Date(now - 5 * 60_000).toISOString() },
          { uuid: '00000000-0000-4000-8000-000000000003', status: 'processing', created_at: new Date(now - 3_600_000).toISOString() },
          { uuid: '00000000-0000-4000-8000-000000000004', status: 'succeeded', created_at: new Date(now - 3_600_000).toISOString() },
        ],
      },
    });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const from = new Date(now - 3 * 3_600_000);
    const findings = await collect(client.payments.reconcile({ from, isHandled: () => false }));
    expect(findings.map((f) => [f.kind, f.payment.uuid.slice(-1), f.expectedEvent])).toEqual([
      ['missed', '4', 'payment.succeeded'],
      ['stale', '1', undefined],
      ['stale', '3', undefined],
    ]);
    // With a threshold of one minute the five-minute-old payment is stale too (the list is newest first).
    const strict = await collect(client.payments.reconcile({ from, isHandled: () => true, stalePendingAfter: 60_000 }));
    expect(strict.map((f) => f.payment.uuid.slice(-1))).toEqual(['2', '1', '3']);
  });

  it('a Date bound is an instant: payments of the same day outside it are left out', async () => {
    const base = Date.parse('2026-06-01T00:00:00Z');
    const at = (h: number) => new Date(base + h * 3_600_000).toISOString();
    const mock = createMockService({
      now: base + 23 * 3_600_000,
      seed: {
        payments: [
          { uuid: '00000000-0000-4000-8000-000000000001', status: 'succeeded', created_at: at(2) },
          { uuid: '00000000-0000-4000-8000-000000000002', status: 'succeeded', created_at: at(10) },
          { uuid: '00000000-0000-4000-8000-000000000003', status: 'failed', created_at: at(20) },
        ],
      },
    });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const window = { from: new Date(base + 5 * 3_600_000), to: new Date(base + 15 * 3_600_000), isHandled: () => false };
    const findings = await collect(client.payments.reconcile(window));
    expect(findings.map((f) => f.payment.uuid.slice(-1))).toEqual(['2']);
    const wholeDay = await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: () => false }));
    expect(wholeDay.map((f) => f.payment.uuid.slice(-1))).toEqual(['2', '1', '3']);
  });

  it("a date window is the service's own filter: a payment it lists for the day is reported, whatever its UTC hour", async () => {
    const base = Date.parse('2026-06-01T00:00:00Z');
    const at = (h: number) => new Date(base + h * 3_600_000).toISOString();
    const mock = createMockService({
      now: base + 72 * 3_600_000,
      seed: {
        payments: [
          // 00:30 on June 1st at UTC+1, the service's day: 23:30 on May 31st in UTC.
          { uuid: '00000000-0000-4000-8000-000000000001', status: 'succeeded', created_at: at(-0.5) },
          { uuid: '00000000-0000-4000-8000-000000000002', status: 'succeeded', created_at: at(10) },
        ],
      },
    });
    // A service that reads its date filters at UTC+1: its June 1st starts an hour before UTC's.
    const utcPlusOne: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.searchParams.get('from') === DAY) url.searchParams.set('from', '2026-05-31');
      return mock.fetch(input instanceof Request ? new Request(url, input) : url, init);
    };
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: utcPlusOne, maxRetries: 0 });
    const findings = await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: () => false }));
    expect(findings.map((f) => f.payment.uuid.slice(-1)).sort()).toEqual(['1', '2']);
  });

  it('bad options: one InvalidParamsError naming each, thrown at the call, nothing sent', () => {
    const mock = createMockService();
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const call = () =>
      client.payments.reconcile({
        from: '2026-02-30',
        to: 'yesterday',
        isHandled: () => true,
        store: memoryStore(),
        stalePendingAfter: -1,
      } as never);
    expect(call).toThrow(InvalidParamsError);
    try {
      call();
    } catch (error) {
      const issues = Object.fromEntries((error as InvalidParamsError).issues.map((i) => [i.path.join('.'), i.message]));
      expect(issues).toEqual({
        from: 'must be a "YYYY-MM-DD" date or a valid Date',
        to: 'must be a "YYYY-MM-DD" date or a valid Date',
        stalePendingAfter: 'must be ≥ 0, got -1',
        store: 'give store or isHandled, not both',
      });
    }
    // Every callback and the threshold are checked too, in the same error, and a missing window.
    const callbacks = () =>
      client.payments.reconcile({
        store: { read: 'no' },
        onEvent: 'later',
        onProgress: 1,
        stalePendingAfter: Number.POSITIVE_INFINITY,
      } as never);
    expect(callbacks).toThrow(InvalidParamsError);
    try {
      callbacks();
    } catch (error) {
      const issues = Object.fromEntries((error as InvalidParamsError).issues.map((i) => [i.path.join('.'), i.message]));
      expect(issues).toEqual({
        from: 'must be a "YYYY-MM-DD" date or a valid Date',
        store: 'must be a Store from payments-sdk/stores',
        onEvent: 'must be a function',
        onProgress: 'must be a function',
        stalePendingAfter: 'must be a number, got Infinity',
      });
    }
    expect(() => client.payments.reconcile({ from: DAY, isHandled: 'yes' } as never)).toThrow(/isHandled: must be a function/);
    expect(() => client.payments.reconcile({ from: '2026-06-02', to: '2026-06-01', isHandled: () => true })).toThrow(
      /to: must not be before from/,
    );
    // Nothing at all: the window and how "handled" is told, both named.
    for (const named of [/from: must be a "YYYY-MM-DD" date/, /isHandled: must be a function, or give a store/]) {
      expect(() => client.payments.reconcile({} as never)).toThrow(named);
    }
    expect(() => client.payments.reconcile(undefined as never)).toThrow(InvalidParamsError);
    expect(mock.requests).toEqual([]);
  });

  it('with onEvent: handles each missed payment once through the store; a late original then finds it handled', async () => {
    const { mock, client, handled, store } = await lossyShop({ payments: 60, dropRate: 0.3 });
    const lost = lostDeliveries(mock);
    expect(lost.length).toBeGreaterThan(5);
    const reconciled: string[] = [];
    const findings = await collect(
      client.payments.reconcile({
        from: DAY,
        store,
        onEvent: (event) => {
          expect(event).toMatchObject({ id: `reconciled:${event.data.uuid}:${event.type}`, reconciled: true });
          reconciled.push(event.data.uuid);
        },
      }),
    );
    expect(findings.every((f) => f.kind === 'missed' && f.handled === true)).toBe(true);
    expect(new Set(reconciled)).toEqual(new Set(lost.map((l) => l.uuid)));
    // The service's own late attempts of the lost events reach the endpoint's store: none runs onEvent again.
    const before = handled.size;
    const endpoint = webhookHandler({ secret: mock.webhookSecret, store, onEvent: (event) => void handled.set(event.id, event.type) });
    for (const d of mock.deliveries.filter((x) => x.dropped)) {
      const body = JSON.stringify(d.event);
      const { signWebhookPayload } = await import('payments-sdk/webhooks');
      const answer = await endpoint(
        new Request('http://127.0.0.1/hook', {
          method: 'POST',
          body,
          headers: { 'x-service-signature': await signWebhookPayload(body, mock.webhookSecret), 'x-service-event': d.event.type },
        }),
      );
      expect(await answer.json()).toEqual({ received: true, duplicate: true });
    }
    expect(handled.size).toBe(before);
    // A second run finds nothing left.
    expect(await collect(client.payments.reconcile({ from: DAY, store, onEvent: () => {} }))).toEqual([]);
  });

  it('an onEvent that throws for one payment does not stop the run: that finding says so, the others are handled', async () => {
    const mock = createMockService({ seed: { payments: [{ status: 'succeeded' }, { status: 'succeeded' }, { status: 'succeeded' }] } });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const today = mock.now().toISOString().slice(0, 10);
    const store = memoryStore();
    let calls = 0;
    const findings = await collect(
      client.payments.reconcile({
        from: today,
        store,
        onEvent: () => {
          calls += 1;
          if (calls === 1) throw new Error('order table locked');
        },
      }),
    );
    expect(findings.map((f) => f.kind === 'missed' && f.handled)).toEqual([false, true, true]);
    expect(((findings[0] as { error?: Error }).error as Error).message).toBe('order table locked');
    // The next run handles the one that failed, and only it.
    const again = await collect(
      client.payments.reconcile({
        from: today,
        store,
        onEvent: () => {
          calls += 1;
        },
      }),
    );
    expect(again.map((f) => f.kind === 'missed' && f.handled)).toEqual([true]);
    expect(calls).toBe(4);
  });

  it('onProgress follows the pages read', async () => {
    const mock = createMockService({
      seed: { payments: Array.from({ length: 130 }, (_, i) => ({ status: i < 120 ? 'succeeded' : 'pending' })) },
    });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const seen: Array<{ read: number; total: number }> = [];
    const today = mock.now().toISOString().slice(0, 10);
    await collect(
      client.payments.reconcile({ from: today, isHandled: () => true, onProgress: ({ read, total }) => seen.push({ read, total }) }),
    );
    // succeeded (2 pages), refunded, disputed, failed, pending, processing.
    expect(seen).toEqual([
      { read: 100, total: 120 },
      { read: 120, total: 120 },
      { read: 120, total: 120 },
      { read: 120, total: 120 },
      { read: 120, total: 120 },
      { read: 130, total: 130 },
      { read: 130, total: 130 },
    ]);
  });
});

describe('payments.reconcile: payments that moved on after succeeded', () => {
  const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  const base = Date.parse('2026-06-01T08:00:00Z');
  const shop = () => {
    const mock = createMockService({
      now: base + 3_600_000,
      seed: {
        payments: [
          { uuid: id(1), status: 'refunded', created_at: new Date(base).toISOString() },
          { uuid: id(2), status: 'disputed', created_at: new Date(base).toISOString() },
          // A status this version of the SDK does not know: the service may add one.
          { uuid: id(3), status: 'partially_refunded', created_at: new Date(base).toISOString() },
          { uuid: id(4), status: 'refunded', created_at: new Date(base).toISOString() },
          { uuid: id(5), status: 'canceled', created_at: new Date(base).toISOString() },
          { uuid: id(6), status: 'expired', created_at: new Date(base).toISOString() },
        ],
      },
    });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    return { mock, client };
  };

  it('reports a refunded, disputed or newer-status payment whose payment.succeeded was never handled, and not one whose was', async () => {
    const { client } = shop();
    // The merchant handled payment.succeeded of payment 4 only (before it was refunded).
    const findings = await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: (p) => p.uuid === id(4) }));
    expect(findings.map((f) => [f.kind, f.payment.uuid, f.payment.status, f.expectedEvent])).toEqual([
      ['missed', id(1), 'refunded', 'payment.succeeded'],
      ['missed', id(2), 'disputed', 'payment.succeeded'],
      ['missed', id(3), 'partially_refunded', 'payment.succeeded'],
    ]);
  });

  it('asks the store for payment.succeeded of each, and reads the window whole only when a status is unknown', async () => {
    const { mock, client } = shop();
    const store = memoryStore();
    // The endpoint handled payment.succeeded of payment 4 (before it was refunded).
    const handled = `payment:${id(4)}:payment.succeeded`;
    await store.claim([{ key: handled, owner: 'endpoint', leaseMs: 1000 }]);
    await store.settle(handled, 'endpoint', {});
    const asked: string[] = [];
    const counted = countingReads(store);
    const read = counted.read;
    counted.read = (keys) => {
      for (const key of keys) asked.push(`${key.split(':')[1]?.slice(-1)} ${key.split(':')[2]}`);
      return read(keys);
    };
    const findings = await collect(client.payments.reconcile({ from: DAY, to: DAY, store: counted }));
    expect(findings.map((f) => f.payment.uuid)).toEqual([id(1), id(2), id(3)]);
    expect(asked.sort()).toEqual(['1 payment.succeeded', '2 payment.succeeded', '3 payment.succeeded', '4 payment.succeeded']);
    const whole = mock.requests.filter((r) => r.path.startsWith('/api/v1/payments?') && !r.path.includes('status='));
    // The count of every status, then the one page read for the unknown status.
    expect(whole.map((r) => new URL(r.path, 'http://x').searchParams.get('per_page'))).toEqual(['1', '100']);
  });
});
