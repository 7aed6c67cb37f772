// A CommonJS script (require): the .d.cts types of every entry.
import { formatAmount, PaymentsClient } from 'payments-sdk';
import { PaymentSchema } from 'payments-sdk/schemas';
import { createMockService } from 'payments-sdk/testing';
import { verifyWebhook } from 'payments-sdk/webhooks';

async function main(): Promise<void> {
  const mock = createMockService();
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
  for await (const payment of client.payments.list({ per_page: 100 })) {
    console.log(formatAmount(payment.gross_amount, payment.currency), PaymentSchema);
  }
  const delivery = await mock.createDelivery({ type: 'payment.succeeded', data: { uuid: 'pay_1' } });
  const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
  console.log(event.type);
}

void main();
