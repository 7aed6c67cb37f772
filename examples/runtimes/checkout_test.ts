/**
 * `bun test` with the testing kit: the whole payment, from checkout to the webhook, in process.
 * (Named `_test.ts`, a name `bun test` picks up.)
 */
import { expect, test } from 'bun:test';
import { PaymentsClient } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { webhookHandler } from 'payments-sdk/webhooks';

test('a paid checkout reaches the webhook handler once', async () => {
  const mock = createMockService();
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
  const paid: string[] = [];
  const endpoint = webhookHandler({
    secret: mock.webhookSecret,
    on: { 'payment.succeeded': (event) => void paid.push(event.data.uuid) },
  });

  const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
  const delivery = await mock.paySession(session.reference);
  expect((await mock.deliver(delivery, endpoint)).status).toBe(200);
  expect((await mock.deliver(delivery, endpoint)).status).toBe(200); // the service may deliver twice

  const payment = await client.checkoutSessions.findPayment(session.reference);
  expect(payment?.status).toBe('succeeded');
  expect(paid).toEqual([payment?.uuid]);
});
