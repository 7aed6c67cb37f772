// A Hono app on an edge runtime: the fetch-style webhook handler and the client.
import { Hono } from 'hono';
import { PaymentsClient } from 'payments-sdk';
import { PaymentSchema } from 'payments-sdk/schemas';
import { type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import * as z from 'zod/mini';

const app = new Hono<{ Bindings: { PAYMENTS_API_KEY: string; PAYMENTS_BASE_URL: string; PAYMENTS_WEBHOOK_SECRET: string } }>();

app.post('/webhooks/payments', (c) =>
  webhookHandler({
    secret: c.env.PAYMENTS_WEBHOOK_SECRET,
    onEvent: async (event: WebhookEvent) => {
      if (event.type === 'payment.succeeded') console.log(event.data.gross_amount);
    },
  })(c.req.raw),
);

app.get('/payments/:uuid', async (c) => {
  const client = new PaymentsClient({ apiKey: c.env.PAYMENTS_API_KEY, baseUrl: c.env.PAYMENTS_BASE_URL });
  const payment = await client.payments.retrieve(c.req.param('uuid'));
  // A payment stored earlier, validated the way the client validates a response.
  const stored = z.parse(PaymentSchema, JSON.parse(JSON.stringify(payment)));
  return c.json({ status: stored.status });
});

// The zod schemas live in payments-sdk/schemas, not in the main entry.
type MainEntry = typeof import('payments-sdk');
const schemasStayOut: 'PaymentSchema' extends keyof MainEntry ? never : 'listEnvelope' extends keyof MainEntry ? never : true = true;
console.log(schemasStayOut);

export default app;
