// The testing kit without msw: mock.fetch plugged into the client.
import { PaymentsClient } from 'payments-sdk';
import { createMockService, type WebhookDelivery } from 'payments-sdk/testing';

const mock = createMockService();
const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
const payment = await client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
const delivery: WebhookDelivery = await mock.settlePayment(payment.uuid);
const response: Response = await mock.deliver(delivery, async () => new Response('ok'), { url: '/webhooks/payments' });
console.log(response.status);
