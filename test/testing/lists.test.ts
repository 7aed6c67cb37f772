/** Lists on the mock: envelope, absolute links, per_page, filters, order (docs/service.md "Endpoints"). */
import { PaymentsClient, UnprocessableEntityError } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { chargeParams } from '../helpers/fixtures.js';
import { raw, setup } from '../helpers/mock-service.js';

/** `n` seeded payments, one a minute from 2026-03-01T00:00Z, the i-th with `gross_amount` = i + 1. */
function seeded(n: number, status = (_i: number) => 'succeeded') {
  return Array.from({ length: n }, (_, i) => ({
    gross_amount: i + 1,
    status: status(i),
    created_at: new Date(Date.UTC(2026, 2, 1) + i * 60_000).toISOString(),
  }));
}

describe('the list envelope', () => {
  it('pages by 20 by default, most recent first, with absolute links and meta', async () => {
    const { mock, client } = setup({ seed: { payments: seeded(45) } });
    const first = await client.payments.list();
    expect(first.data.map((p) => p.gross_amount)).toEqual(Array.from({ length: 20 }, (_, i) => 45 - i));
    expect(first.meta).toMatchObject({ current_page: 1, last_page: 3, per_page: 20, total: 45 });
    expect(first.links).toEqual({
      first: `${mock.baseUrl}/api/v1/payments?page=1`,
      last: `${mock.baseUrl}/api/v1/payments?page=3`,
      prev: null,
      next: `${mock.baseUrl}/api/v1/payments?page=2`,
    });
    const last = await (await first.getNextPage()).getNextPage();
    expect(last.data.map((p) => p.gross_amount)).toEqual([5, 4, 3, 2, 1]);
    expect(last.meta.current_page).toBe(3);
    expect(last.links.next).toBeNull();
    expect(last.links.prev).toBe(`${mock.baseUrl}/api/v1/payments?page=2`);
    const all = await client.payments.list().toArray();
    expect(all).toHaveLength(45);
    expect(new Set(all.map((p) => p.uuid)).size).toBe(45);
  });

  it('a list made after a creation, a seed or a reset shows them (the sorted order is not kept stale)', async () => {
    const { mock, client } = setup({ seed: { payments: seeded(3) } });
    expect((await client.payments.list()).meta.total).toBe(3);
    const created = await client.payments.create(chargeParams);
    const after = await client.payments.list();
    expect(after.meta.total).toBe(4);
    expect(after.data[0]?.uuid).toBe(created.uuid);
    mock.seed({ payments: seeded(2) });
    expect((await client.payments.list()).meta.total).toBe(6);
    mock.reset();
    expect((await client.payments.list()).meta.total).toBe(3);
  });

  it('an empty list has one page; a page past the last is empty', async () => {
    const { mock, client } = setup();
    const empty = await client.payments.list();
    expect(empty.data).toEqual([]);
    expect(empty.meta).toMatchObject({ current_page: 1, last_page: 1, total: 0 });
    expect(empty.links.next).toBeNull();
    mock.seed({ payments: seeded(3) });
    const beyond = await client.payments.list({ page: 5 });
    expect(beyond.data).toEqual([]);
    expect(beyond.links.next).toBeNull();
    expect(beyond.meta).toMatchObject({ current_page: 5, last_page: 1, total: 3 });
  });

  it('orders by creation time, then by creation order when the clock did not move', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z' });
    const a = await client.payments.create(chargeParams);
    const b = await client.payments.create(chargeParams);
    mock.advance(1000);
    const c = await client.payments.create(chargeParams);
    expect((await client.payments.list()).data.map((p) => p.uuid)).toEqual([c.uuid, b.uuid, a.uuid]);
  });
});

describe('per_page (§4.10: default 20, maximum 100)', () => {
  it('accepts 1 to 100', async () => {
    const { client } = setup({ seed: { payments: seeded(120) } });
    const page = await client.payments.list({ per_page: 100 });
    expect(page.data).toHaveLength(100);
    expect(page.meta).toMatchObject({ per_page: 100, last_page: 2 });
    expect(page.links.next).toBe('https://mock.payments.test/api/v1/payments?per_page=100&page=2');
    expect((await client.payments.list({ per_page: 1 })).meta.last_page).toBe(120);
  });

  it('answers 422 on per_page above 100, below 1 or not an integer', async () => {
    const { mock } = setup();
    for (const [value, message] of [
      ['101', 'La valeur de per_page doit être inférieure ou égale à 100.'],
      ['0', 'La valeur de per_page doit être supérieure ou égale à 1.'],
      ['ten', 'Le champ per_page doit être un entier.'],
    ]) {
      const { status, body } = await raw(mock, 'GET', `/payments?per_page=${value}`);
      expect(status).toBe(422);
      expect(body).toEqual({ message, errors: { per_page: [message] } });
    }
  });
});

describe('filters', () => {
  it('status filters, and the links keep the filters', async () => {
    const { mock, client } = setup({ seed: { payments: seeded(7, (i) => (i % 2 === 0 ? 'succeeded' : 'failed')) } });
    const page = await client.payments.list({ status: 'succeeded', per_page: 2 });
    expect(page.data.map((p) => p.gross_amount)).toEqual([7, 5]);
    expect(page.meta.total).toBe(4);
    expect(page.links.next).toBe(`${mock.baseUrl}/api/v1/payments?status=succeeded&per_page=2&page=2`);
    const all = await client.payments.list({ status: 'succeeded', per_page: 2 }).toArray();
    expect(all.map((p) => p.gross_amount)).toEqual([7, 5, 3, 1]);
    expect((await client.payments.list({ status: 'failed' })).data.map((p) => p.gross_amount)).toEqual([6, 4, 2]);
  });

  it('answers 422 on a status the resource does not have (cancelled is a session state, not a payment state)', async () => {
    const { mock } = setup();
    const { status, body } = await raw(mock, 'GET', '/payments?status=cancelled');
    expect(status).toBe(422);
    expect(body.errors).toEqual({ status: ['La valeur sélectionnée pour status est invalide.'] });
    expect((await raw(mock, 'GET', '/checkout-sessions?status=cancelled')).status).toBe(200);
  });

  it('from and to are inclusive UTC dates', async () => {
    const days = ['2026-02-27T23:59:59Z', '2026-02-28T00:00:00Z', '2026-03-01T12:00:00Z', '2026-03-02T00:00:00Z'];
    const { client } = setup({ seed: { payments: days.map((created_at, i) => ({ created_at, gross_amount: i + 1 })) } });
    const amounts = async (params: object) => (await client.payments.list(params)).data.map((p) => p.gross_amount);
    expect(await amounts({ from: '2026-02-28', to: '2026-03-01' })).toEqual([3, 2]);
    expect(await amounts({ from: '2026-03-01' })).toEqual([4, 3]);
    expect(await amounts({ to: new Date('2026-02-28T15:00:00Z') })).toEqual([2, 1]);
    expect(await amounts({ from: '2026-03-02', to: '2026-03-02' })).toEqual([4]);
  });

  it('answers 422 on a date that is not YYYY-MM-DD, or to before from', async () => {
    const { mock } = setup();
    const bad = await raw(mock, 'GET', '/payments?from=2026-02-30&to=01/03/2026');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['from', 'to']);
    const reversed = await raw(mock, 'GET', '/checkout-sessions?from=2026-03-02&to=2026-03-01');
    expect(reversed.status).toBe(422);
    expect(reversed.body.errors.to).toHaveLength(1);
    const error = await caught(
      new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch }).payouts.list({
        from: '2026-03-02',
        to: '2026-03-01',
      }),
    );
    expect(error).toBeInstanceOf(UnprocessableEntityError);
  });
});

describe('every paginated resource uses the envelope', () => {
  it('checkout sessions, payouts and payment links page the same way', async () => {
    const mock = createMockService();
    const createdAt = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    mock.seed({
      checkoutSessions: Array.from({ length: 25 }, (_, i) => ({ amount: i + 1, created_at: createdAt(i) })),
      paymentLinks: Array.from({ length: 25 }, (_, i) => ({ title: `Link ${i + 1}`, created_at: createdAt(i) })),
    });
    mock.seed(
      { payouts: Array.from({ length: 25 }, (_, i) => ({ amount: i + 1, created_at: createdAt(i) })) },
      { apiKey: mock.liveApiKey },
    );
    const sandbox = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
    const live = new PaymentsClient({ apiKey: mock.liveApiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
    const sessions = await sandbox.checkoutSessions.list();
    expect(sessions.meta).toMatchObject({ total: 25, per_page: 20, last_page: 2 });
    expect(sessions.data[0]?.amount).toBe(25);
    expect(sessions.links.next).toBe(`${mock.baseUrl}/api/v1/checkout-sessions?page=2`);
    const links = await sandbox.paymentLinks.list();
    expect(links.data[0]?.title).toBe('Link 25');
    expect(await sandbox.paymentLinks.list().toArray()).toHaveLength(25);
    const payouts = await live.payouts.list({ per_page: 10 });
    expect(payouts.data.map((p) => p.amount)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
    expect(payouts.links.last).toBe(`${mock.baseUrl}/api/v1/payouts?per_page=10&page=3`);
  });
});
