/** Idempotency on the mock (docs/service.md "Idempotency"): 201, 200 replay, 409 on another payload, forgotten after 24 h. */
import { IdempotencyConflictError } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../src/testing/engine/idempotency.js';
import { caught } from '../helpers/caught.js';
import { chargeParams } from '../helpers/fixtures.js';
import { clientFor, raw, setup } from '../helpers/mock-service.js';

const PAYOUT = {
  amount: 1000,
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
};

describe('Idempotency-Key', () => {
  it('same key, same content: 201 then the original answer replayed with 200, nothing created', async () => {
    const { client } = setup();
    const first = await client.payments.create(chargeParams, { idempotencyKey: 'order-1042' }).withResponse();
    const again = await client.payments.create(chargeParams, { idempotencyKey: 'order-1042' }).withResponse();
    expect([first.response.status, first.replayed]).toEqual([201, false]);
    expect([again.response.status, again.replayed]).toEqual([200, true]);
    expect(again.data).toEqual(first.data);
    expect((await client.payments.list()).meta.total).toBe(1);
  });

  it('replays the answer as it was, even after the payment moved on', async () => {
    const { mock, client } = setup();
    const first = await client.payments.create(chargeParams, { idempotencyKey: 'k' });
    await mock.settlePayment(first.uuid);
    const replay = await client.payments.create(chargeParams, { idempotencyKey: 'k' });
    expect(replay.status).toBe('pending');
    expect((await client.payments.retrieve(first.uuid)).status).toBe('succeeded');
  });

  it('same key, other content: 409 IdempotencyConflictError carrying the key', async () => {
    const { client } = setup();
    await client.payments.create(chargeParams, { idempotencyKey: 'order-1042' });
    const error = await caught(client.payments.create({ ...chargeParams, amount: 5001 }, { idempotencyKey: 'order-1042' }));
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error.status).toBe(409);
    expect(error.message).toBe("Cette clé d'idempotence a déjà été utilisée avec un contenu différent.");
    expect(error.idempotencyKey).toBe('order-1042');
  });

  it('"same content" is the same JSON value: key order does not matter', async () => {
    const { mock } = setup();
    const headers = { 'Idempotency-Key': 'k1' };
    const a = await raw(mock, 'POST', '/checkout-sessions', { headers, body: '{"amount":100,"currency":"XOF","metadata":{"a":1,"b":2}}' });
    const b = await raw(mock, 'POST', '/checkout-sessions', {
      headers,
      body: '{ "metadata": {"b":2,"a":1}, "currency":"XOF", "amount":100 }',
    });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.headers.get('Idempotent-Replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    const c = await raw(mock, 'POST', '/checkout-sessions', { headers, body: { amount: 100, currency: 'XOF', metadata: { a: 1, b: 3 } } });
    expect(c.status).toBe(409);
  });

  it('keys are forgotten after 24 hours of the mock clock', async () => {
    const { mock, client } = setup({ now: '2026-03-01T00:00:00Z' });
    const first = await client.checkoutSessions.create({ amount: 100, currency: 'XOF' }, { idempotencyKey: 'k' });
    mock.advance(IDEMPOTENCY_TTL_MS - 1);
    const replay = await client.checkoutSessions.create({ amount: 100, currency: 'XOF' }, { idempotencyKey: 'k' }).withResponse();
    expect([replay.replayed, replay.data.reference]).toEqual([true, first.reference]);
    mock.advance(1);
    const fresh = await client.checkoutSessions.create({ amount: 100, currency: 'XOF' }, { idempotencyKey: 'k' }).withResponse();
    expect(fresh.response.status).toBe(201);
    expect(fresh.data.reference).not.toBe(first.reference);
    // Forgotten means forgotten: another payload under the old key is a new creation, not a 409.
    mock.advance(IDEMPOTENCY_TTL_MS);
    expect(
      (await client.checkoutSessions.create({ amount: 200, currency: 'XOF' }, { idempotencyKey: 'k' }).withResponse()).response.status,
    ).toBe(201);
  });

  it('holds for all four creations', async () => {
    const { mock, client, live } = setup();
    mock.seed({ wallets: [{ currency: 'XOF', balance: 10_000 }] }, { apiKey: mock.liveApiKey });
    const calls = [
      (key: string) => client.payments.create(chargeParams, { idempotencyKey: key }).withResponse(),
      (key: string) => client.checkoutSessions.create({ amount: 100, currency: 'XOF' }, { idempotencyKey: key }).withResponse(),
      (key: string) => live.payouts.create(PAYOUT, { idempotencyKey: key }).withResponse(),
      (key: string) => client.paymentLinks.create({ title: 'Tee', currency: 'XOF' }, { idempotencyKey: key }).withResponse(),
    ];
    for (const call of calls) {
      const a = await call('same');
      const b = await call('same');
      expect([a.response.status, b.response.status, b.replayed]).toEqual([201, 200, true]);
      expect(b.data).toEqual(a.data);
    }
    // One payout, one reserve of the wallet.
    expect(await live.wallets.list()).toEqual([{ currency: 'XOF', balance: 9000 }]);
  });

  it('a key is scoped to its endpoint and its merchant', async () => {
    const { mock, client } = setup({ merchants: [{ keys: ['sk_test_a'] }, { keys: ['sk_test_b'] }] });
    await client.payments.create(chargeParams, { idempotencyKey: 'shared' });
    expect(
      (await client.checkoutSessions.create({ amount: 1, currency: 'XOF' }, { idempotencyKey: 'shared' }).withResponse()).response.status,
    ).toBe(201);
    const b = clientFor(mock, 'sk_test_b');
    expect((await b.payments.create({ ...chargeParams, amount: 1 }, { idempotencyKey: 'shared' }).withResponse()).response.status).toBe(
      201,
    );
  });

  it('an error is not remembered: the same key may then create', async () => {
    const { client } = setup();
    const refused = await caught(client.payments.create({ ...chargeParams, phone: '221770000001' }, { idempotencyKey: 'k' }));
    expect(refused.failureReason).toBe('insufficient_funds');
    expect((await client.payments.create(chargeParams, { idempotencyKey: 'k' }).withResponse()).response.status).toBe(201);
  });

  it('a lost answer: the client retries with the same key and gets the original, so the customer is charged once', async () => {
    const { mock } = setup();
    const client = clientFor(mock, mock.apiKey, 2);
    mock.injectFault({ method: 'POST', network: true, afterProcessing: true });
    const result = await client.payments.create(chargeParams).withResponse();
    expect(result.replayed).toBe(true);
    expect(result.response.status).toBe(200);
    expect((await client.payments.list()).data.map((p) => p.uuid)).toEqual([result.data.uuid]);
    const posts = mock.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.status)).toEqual([0, 200]);
    expect(posts[0]?.idempotencyKey).toBe(result.idempotencyKey);
    expect(posts[1]?.idempotencyKey).toBe(result.idempotencyKey);
  });
});
