/**
 * The mock service's actions behind the dashboard of `payments-sdk mock`, as the testing kit offers
 * them: resend a delivery (same event, one more attempt), lose the next N events, move the clock to
 * the next attempt due, and list the newest resources of every merchant and mode.
 */
import { PaymentsClient } from 'payments-sdk';
import { createMockService, MockServiceError } from 'payments-sdk/testing';
import { verifyWebhook } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';

const T0 = Date.parse('2026-06-01T08:00:00Z');
const CHARGE = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' } as const;

function setup(status: () => number) {
  const received: string[] = [];
  let secret = '';
  const endpoint = async (request: Request) => {
    const event = await verifyWebhook({ payload: await request.text(), headers: request.headers, secret });
    received.push(event.id);
    return new Response(null, { status: status() });
  };
  const mock = createMockService({ now: T0, webhooks: { endpoint } });
  secret = mock.webhookSecret;
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  return { mock, client, received };
}

describe('mock actions for the dashboard', () => {
  it('resendDelivery posts the same event again, as one more attempt', async () => {
    const { mock, client, received } = setup(() => 200);
    const delivery = await mock.settlePayment((await client.payments.create(CHARGE)).uuid);
    const attempt = await mock.resendDelivery(delivery.event.id);
    expect(attempt).toMatchObject({ number: 2, status: 200, ok: true });
    expect(received).toEqual([delivery.event.id, delivery.event.id]);
    expect(delivery.attempts.map((a) => a.status)).toEqual([200, 200]);
    await expect(mock.resendDelivery('evt_unknown')).rejects.toThrow(/no delivery of event "evt_unknown"/);
  });

  it('resendDelivery of a failing delivery that now succeeds ends its retries', async () => {
    let answer = 500;
    const { mock, client } = setup(() => answer);
    const delivery = await mock.settlePayment((await client.payments.create(CHARGE)).uuid);
    expect(delivery.nextAttemptAt?.getTime()).toBe(T0 + 60_000);
    answer = 204;
    await mock.resendDelivery(delivery.event.id);
    expect(delivery.delivered).toBe(true);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(mock.advanceToNextAttempt()).toBeNull();
  });

  it('dropNextDeliveries loses every attempt of the next N events; a resend still reaches the endpoint', async () => {
    const { mock, client, received } = setup(() => 200);
    mock.dropNextDeliveries(1);
    expect(mock.droppingNext).toBe(1);
    const lost = await mock.settlePayment((await client.payments.create(CHARGE)).uuid);
    const kept = await mock.failPayment((await client.payments.create(CHARGE)).uuid);
    expect(mock.droppingNext).toBe(0);
    expect(lost).toMatchObject({ dropped: true, delivered: false });
    expect(lost.attempts[0]).toMatchObject({ lost: true, status: null });
    expect(kept).toMatchObject({ dropped: false, delivered: true });
    expect(received).toEqual([kept.event.id]);
    await mock.resendDelivery(lost.event.id);
    expect(received).toEqual([kept.event.id, lost.event.id]);
    expect(lost.delivered).toBe(true);
    expect(() => mock.dropNextDeliveries(0)).toThrow(/count must be an integer ≥ 1/);
  });

  it('advanceToNextAttempt moves the clock to the next attempt due and runs it', async () => {
    const { mock, client } = setup(() => 500);
    const delivery = await mock.settlePayment((await client.payments.create(CHARGE)).uuid);
    expect(mock.advanceToNextAttempt()?.getTime()).toBe(T0 + 60_000);
    await mock.deliveriesSettled();
    expect(delivery.attempts.map((a) => a.at.getTime())).toEqual([T0, T0 + 60_000]);
    expect(delivery.nextAttemptAt?.getTime()).toBe(T0 + 60_000 + 600_000);
  });

  it('the delivery actions need a webhooks endpoint', async () => {
    const mock = createMockService();
    expect(() => mock.dropNextDeliveries(1)).toThrow(MockServiceError);
    expect(() => mock.advanceToNextAttempt()).toThrow(/needs the webhooks option/);
    await expect(mock.resendDelivery('evt_1')).rejects.toThrow(MockServiceError);
    expect(mock.droppingNext).toBe(0);
  });

  it('records lists the newest resources of every merchant and mode, newest first, up to limit', async () => {
    const mock = createMockService({ now: T0 });
    mock.seed({ payments: [{ gross_amount: 100 }, { gross_amount: 200 }], paymentLinks: [{ title: 'Tea' }] });
    mock.seed({ wallets: [{ currency: 'XOF', balance: 10_000 }] }, { apiKey: mock.liveApiKey });
    const live = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: mock.baseUrl, fetch: mock.fetch });
    mock.advance(1000);
    const payout = await live.payouts.create({
      amount: 1000,
      currency: 'XOF',
      destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
    });
    const records = mock.records({ limit: 1 });
    expect(records.payments).toHaveLength(1);
    expect(records.payouts).toEqual([{ mode: 'live', merchant: 'merchant_1', data: payout }]);
    expect(records.paymentLinks[0]).toMatchObject({ mode: 'sandbox', data: { title: 'Tea' } });
    expect(records.checkoutSessions).toEqual([]);
    expect(
      mock
        .records()
        .payments.map((p) => p.data.gross_amount)
        .sort(),
    ).toEqual([100, 200]);
    expect(() => mock.records({ limit: -1 })).toThrow(/limit must be an integer/);
  });
});
