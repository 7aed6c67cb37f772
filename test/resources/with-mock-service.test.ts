/**
 * Resource helpers that need a whole service (several endpoints and state changes) run against the
 * testing kit, the in-process model of the service (README "Testing kit"): findPayment walks real pages with
 * absolute links, and waitForCompletion sees a payment settle.
 */
import { describe, expect, test } from 'vitest';
import { APIPromise, PaymentsClient } from '../../src/index.js';
import { createMockService } from '../../src/testing/index.js';

function setup() {
  const mock = createMockService();
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
  return { mock, client };
}

const charge = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

describe('checkoutSessions.findPayment against the mock service', () => {
  test('finds the payment of a paid session among many pages of other payments', async () => {
    const { mock, client } = setup();
    const session = await client.checkoutSessions.create({ amount: 7500, currency: 'XOF' });
    await mock.paySession(session.reference);
    // 120 later direct charges: the session's payment is on page 2 of 100 (most recent first).
    for (let i = 0; i < 120; i++) await client.payments.create(charge);
    const pending = client.checkoutSessions.findPayment(session.reference);
    expect(pending).toBeInstanceOf(APIPromise);
    const { data, response } = await pending.withResponse();
    expect(data).toMatchObject({ checkout_session: session.reference, gross_amount: 7500, status: 'succeeded' });
    // The response is the page where it was found: page 2.
    expect(new URL(response.url).searchParams.get('page')).toBe('2');
  });

  test('null for a session nobody paid', async () => {
    const { client } = setup();
    await client.payments.create(charge);
    const session = await client.checkoutSessions.create({ amount: 100, currency: 'XOF' });
    expect(await client.checkoutSessions.findPayment(session.reference)).toBeNull();
  });
});

describe('payments.waitForCompletion against the mock service', () => {
  test('returns the payment once settled, as an APIPromise whose response is the last poll', async () => {
    const { mock, client } = setup();
    const payment = await client.payments.create(charge);
    const waiting = client.payments.waitForCompletion(payment.uuid, { interval: 5, timeout: 5_000 });
    expect(waiting).toBeInstanceOf(APIPromise);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mock.settlePayment(payment.uuid);
    const { data, response } = await waiting.withResponse();
    expect(data.status).toBe('succeeded');
    expect(response.url).toContain(`/api/v1/payments/${payment.uuid}`);
  });
});
