/**
 * An Express 5 server that receives the payments service's webhooks (service-api.md §6).
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node examples/express-webhook.ts
 *
 * The webhook route is declared BEFORE `app.use(express.json())`: the signature covers the raw
 * body, and a body parsed by express.json() cannot be turned back into the signed bytes.
 * `expressWebhook` reads the raw body itself; `express.raw({ type: 'application/json' })` on the
 * route works too.
 */
import express from 'express';
import { expressWebhook, type PaymentWebhookEvent, redisDedupeStore } from 'payments-sdk/webhooks';
import { createClient } from 'redis';

export const app = express();

async function fulfilOrder(event: PaymentWebhookEvent): Promise<void> {
  // Keep this short (the service waits 10 s, §6.4): record the payment, enqueue the rest.
  console.log(`payment ${event.data.uuid} succeeded: ${event.data.net_amount_to_merchant} ${event.data.currency} credited`);
}

// Several instances behind a load balancer share one dedupe store; one instance can drop
// `dedupe` and use the default in-memory store.
const redis = process.env.REDIS_URL ? await createClient({ url: process.env.REDIS_URL }).connect() : undefined;
const dedupe = redis ? redisDedupeStore(redis) : undefined;

app.post(
  '/webhooks/payments',
  expressWebhook({
    secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
    on: {
      'payment.succeeded': fulfilOrder,
      'payment.failed': async (event) => {
        console.log(`payment ${event.data.uuid} failed: ${event.data.failure_reason ?? 'no reason given'}`);
      },
      'payout.*': async (event) => {
        console.log(`payout ${String(event.data.id)} is now ${event.type.slice('payout.'.length)}`);
      },
    },
    // Throwing in a handler answers 500: the service delivers the event again later (up to 5 attempts).
    dedupe, // undefined: the default, in this process's memory
  }),
);

// Only now the JSON parser for the rest of the API.
app.use(express.json());
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000);
  app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/webhooks/payments`));
}
