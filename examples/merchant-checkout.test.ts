/**
 * A merchant's end-to-end test of a checkout flow, written the way you would write yours with
 * `payments-sdk/testing`: your code creates a checkout session, the mock service plays the customer
 * paying on the hosted page, and your webhook endpoint receives the signed delivery and marks the
 * order paid. No network, no sandbox account, no sleeping.
 *
 * Run with `npm test` (vitest picks up examples/**\/*.test.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { PaymentsClient } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { expressWebhook, type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// ---------------------------------------------------------------------------------------------
// The merchant's application code (in a real project: src/orders.ts and a route file).
// ---------------------------------------------------------------------------------------------

type OrderStatus = 'awaiting_payment' | 'paid' | 'payment_failed';

interface Order {
  id: string;
  amount: number;
  status: OrderStatus;
  checkoutReference?: string;
  paymentUuid?: string;
}

/** A tiny shop: orders in memory, checkout through the payments service, fulfilment on webhooks. */
function createShop(client: PaymentsClient) {
  const orders = new Map<string, Order>();
  let fulfilments = 0;

  /** Starts paying an order: returns the hosted page the customer is redirected to. */
  async function checkout(orderId: string, amount: number): Promise<string> {
    const session = await client.checkoutSessions.create(
      {
        amount,
        currency: 'XOF',
        description: `Order ${orderId}`,
        success_url: 'https://shop.example/thanks',
        metadata: { order_id: orderId },
      },
      // One key per order: a double click or a retry never opens two sessions.
      { idempotencyKey: `checkout-${orderId}` },
    );
    orders.set(orderId, { id: orderId, amount, status: 'awaiting_payment', checkoutReference: session.reference });
    return session.checkout_url;
  }

  /** What the webhook endpoint does with a verified event. */
  async function onEvent(event: WebhookEvent): Promise<void> {
    if (event.type !== 'payment.succeeded' && event.type !== 'payment.failed') return;
    const payment = event.data;
    const order = [...orders.values()].find((o) => o.checkoutReference === payment.checkout_session);
    if (!order) return;
    if (event.type === 'payment.failed') {
      if (order.status !== 'paid') order.status = 'payment_failed';
      return;
    }
    // Never trust the amount of the order alone: check what the customer actually paid.
    if (payment.gross_amount !== order.amount || payment.currency !== 'XOF')
      throw new Error(`Order ${order.id}: paid amount does not match`);
    order.status = 'paid';
    order.paymentUuid = payment.uuid;
    fulfilments += 1;
  }

  return { orders, checkout, onEvent, fulfilments: () => fulfilments };
}

// ---------------------------------------------------------------------------------------------
// The merchant's tests.
// ---------------------------------------------------------------------------------------------

describe('checkout → hosted payment → webhook → order paid', () => {
  let mock: ReturnType<typeof createMockService>;
  let shop: ReturnType<typeof createShop>;
  let webhook: (request: Request) => Promise<Response>;
  let rejected: unknown[];

  beforeEach(() => {
    mock = createMockService();
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
    shop = createShop(client);
    // The endpoint as deployed (a Next.js route handler, Hono, Bun, Workers…), with the mock's secret.
    rejected = [];
    webhook = webhookHandler({ secret: mock.webhookSecret, onEvent: shop.onEvent, onError: (_error, info) => rejected.push(info.reason) });
  });

  it('marks the order paid once the customer has paid', async () => {
    const url = await shop.checkout('1042', 5000);
    expect(url).toMatch(/^https:\/\/mock\.payments\.test\/checkout\//);
    const order = shop.orders.get('1042');
    expect(order?.status).toBe('awaiting_payment');

    // The customer pays on the hosted page; the service sends payment.succeeded.
    const delivery = await mock.paySession(order?.checkoutReference as string);
    const response = await mock.deliver(delivery, webhook);

    expect(response.status).toBe(200);
    expect(shop.orders.get('1042')).toMatchObject({ status: 'paid', paymentUuid: delivery.event.data.uuid });
    expect(mock.getCheckoutSession(order?.checkoutReference as string)?.status).toBe('completed');
  });

  it('fulfils once when the service delivers the same event twice (§6.4: deduplicate on id)', async () => {
    await shop.checkout('1043', 5000);
    const delivery = await mock.paySession(shop.orders.get('1043')?.checkoutReference as string);
    expect((await mock.deliver(delivery, webhook)).status).toBe(200);
    expect((await mock.deliver(delivery, webhook)).status).toBe(200);
    expect(shop.fulfilments()).toBe(1);
  });

  it('refuses a delivery that was not signed with our secret, or was altered, and changes nothing', async () => {
    await shop.checkout('1044', 5000);
    const real = await mock.paySession(shop.orders.get('1044')?.checkoutReference as string);
    const forger = createMockService({ webhookSecret: 'whsec_someone_else' });
    const forged = await forger.createDelivery({ type: 'payment.succeeded', data: real.event.data });
    expect((await mock.deliver(forged, webhook)).status).toBe(400);
    const altered = real.body.replace('"gross_amount":5000', '"gross_amount":50');
    expect((await mock.deliver(real, webhook, { body: altered })).status).toBe(400);
    expect(rejected).toEqual(['signature_mismatch', 'signature_mismatch']);
    expect(shop.orders.get('1044')?.status).toBe('awaiting_payment');
  });

  it('a failed attempt, then a successful one', async () => {
    await shop.checkout('1045', 5000);
    const reference = shop.orders.get('1045')?.checkoutReference as string;
    await mock.deliver(await mock.paySession(reference, { outcome: 'failed', failure_reason: 'insufficient_funds' }), webhook);
    expect(shop.orders.get('1045')?.status).toBe('payment_failed');
    await mock.deliver(await mock.paySession(reference), webhook);
    expect(shop.orders.get('1045')?.status).toBe('paid');
  });

  it('the same order never opens two sessions', async () => {
    await shop.checkout('1046', 5000);
    await shop.checkout('1046', 5000);
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
    expect((await client.checkoutSessions.list()).meta.total).toBe(1);
  });
});

describe('the same flow with an Express endpoint on 127.0.0.1', () => {
  const mock = createMockService();
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
  const shop = createShop(client);
  let server: Server;
  let endpoint = '';

  beforeAll(async () => {
    const app = express();
    // The webhook route reads the raw body itself: mount it before any express.json().
    app.post('/webhooks/payments', expressWebhook({ secret: mock.webhookSecret, onEvent: shop.onEvent }));
    app.use(express.json());
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payments`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('receives the signed delivery over HTTP and marks the order paid', async () => {
    await shop.checkout('2001', 7500);
    const delivery = await mock.paySession(shop.orders.get('2001')?.checkoutReference as string);
    const response = await mock.deliver(delivery, endpoint);
    expect(response.status).toBe(200);
    expect(shop.orders.get('2001')?.status).toBe('paid');
  });
});
