/**
 * The testing kit as a merchant first uses it, from the README: each action resolves to one
 * delivery, `deliver` reaches a route that is not `/webhooks`, a hand-made delivery verifies, the
 * live wallet is seeded where payouts are shown, and a `listen()` server's `checkout_url` is on it.
 */
import { Hono } from 'hono';
import { verifyWebhook, webhookHandler } from 'payments-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../helpers/mock-service.js';

const PAYOUT = {
  amount: 3000,
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
} as const;

describe('completePayout()', () => {
  it('resolves to one delivery, payout.completed, like every other action', async () => {
    const { mock, live } = setup();
    mock.seed({ wallets: [{ currency: 'XOF', balance: 1_000_000 }] }, { apiKey: mock.liveApiKey });
    const payout = await live.payouts.create(PAYOUT);
    const delivery = await mock.completePayout(String(payout.id));
    expect(delivery.event.type).toBe('payout.completed');
    expect(delivery.event.data).toMatchObject({ id: payout.id, status: 'completed' });
    const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
    expect(event.type).toBe('payout.completed');
    // The steps before it were delivered too.
    expect(mock.deliveries.map((d) => d.event.type)).toEqual(['payout.approved', 'payout.processing', 'payout.completed']);
    await expect(mock.completePayout(String(payout.id))).rejects.toThrow(/final state/);
  });
});

describe('live payouts and the wallet', () => {
  it('refuses a live payout before the wallet is seeded, and accepts it after the documented seed', async () => {
    const { mock, live } = setup();
    await expect(live.payouts.create(PAYOUT)).rejects.toMatchObject({ status: 422 });
    mock.seed({ wallets: [{ currency: 'XOF', balance: 1_000_000 }] }, { apiKey: mock.liveApiKey });
    expect((await live.payouts.create(PAYOUT)).status).toBe('pending_approval');
  });
});

describe('deliver(delivery, handler)', () => {
  function app(secret: string) {
    const hono = new Hono();
    const seen: string[] = [];
    const handle = webhookHandler({ secret, onEvent: (event) => void seen.push(event.type) });
    hono.post('/webhooks/payments', (c) => handle(c.req.raw));
    return { hono, seen };
  }

  it('reaches a route other than /webhooks with { url } (a path or a whole URL)', async () => {
    const { mock, client } = setup();
    const { hono, seen } = app(mock.webhookSecret);
    const payment = await client.payments.create({
      amount: 5000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
    });
    const delivery = await mock.settlePayment(payment.uuid);
    expect((await mock.deliver(delivery, hono.fetch, { url: '/webhooks/payments' })).status).toBe(200);
    expect((await mock.deliver(delivery, (r) => hono.fetch(r), { url: 'http://shop.localhost/webhooks/payments' })).status).toBe(200);
    expect(seen).toEqual(['payment.succeeded']); // the second one is a duplicate, deduplicated
  });

  it('uses http://localhost/webhooks by default, as documented: another route answers 404', async () => {
    const { mock } = setup();
    const { hono } = app(mock.webhookSecret);
    let url = '';
    const delivery = await mock.createDelivery({ type: 'payment.succeeded', data: {} });
    await mock.deliver(delivery, (request) => {
      url = request.url;
      return hono.fetch(request);
    });
    expect(url).toBe('http://localhost/webhooks');
    expect((await mock.deliver(delivery, hono.fetch)).status).toBe(404);
  });
});

describe('createDelivery() with partial data', () => {
  it('fills the payment fields left out, so the verifier accepts the delivery', async () => {
    const { mock } = setup();
    const delivery = await mock.createDelivery({ type: 'payment.succeeded', data: { uuid: 'x' } });
    const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
    expect(event.type).toBe('payment.succeeded');
    expect(event.data).toMatchObject({ uuid: 'x', status: 'succeeded', currency: 'XOF', gross_amount: 5000, net_amount_to_merchant: 5000 });
  });

  it('keeps what is given, derives the net amount, and marks a failure', async () => {
    const { mock } = setup();
    const delivery = await mock.createDelivery({
      type: 'payment.failed',
      data: { gross_amount: 10_000, psp_fee_amount: 150, currency: 'GHS' },
    });
    const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
    expect(event.data).toMatchObject({
      gross_amount: 10_000,
      net_amount_to_merchant: 9850,
      currency: 'GHS',
      status: 'failed',
      failure_reason: 'declined',
    });
  });

  it('leaves the data of other event types as given', async () => {
    const { mock } = setup();
    const delivery = await mock.createDelivery({ type: 'refund.created', data: { id: 7 } });
    expect(delivery.event.data).toEqual({ id: 7 });
  });
});

describe('listen() and checkout_url', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('gives sessions created while it runs a checkout_url on the server itself', async () => {
    const { mock } = setup();
    const server = await mock.listen();
    closers.push(() => server.close());
    const { PaymentsClient } = await import('payments-sdk');
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: server.url, maxRetries: 0 });
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    const url = new URL(session.checkout_url);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toBe(`/checkout/${session.reference}`);
    // The address reaches the mock's own server (loopback), whatever it serves there.
    const response = await fetch(url);
    await response.body?.cancel();
    expect(response.status).toBeGreaterThan(0);
  });

  it('goes back to the base URL once the server is closed', async () => {
    const { mock, client } = setup();
    const server = await mock.listen();
    await server.close();
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    expect(session.checkout_url.startsWith(`${mock.baseUrl}/checkout/`)).toBe(true);
  });
});
