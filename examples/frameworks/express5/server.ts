/**
 * Express 5: a payments webhook route next to a JSON API.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 *
 * The webhook route is declared BEFORE `app.use(express.json())`: the signature covers the raw
 * body, and a body parsed by express.json() cannot be turned back into the signed bytes.
 * `expressWebhook` reads the raw body itself; `express.raw({ type: 'application/json' })` on the
 * route works too.
 */
import express from 'express';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const app = express();

app.post(
  '/webhooks/payments',
  expressWebhook({
    secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
    onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
    // store: redisStore(redis) when several instances share the traffic (default: in memory)
  }),
);

// Only now the JSON parser, for the rest of the API.
app.use(express.json());
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});

// The mistake, kept to show the SDK's answer: behind express.json() the signed bytes are gone, and
// every delivery is answered 400 with the fix.
app.post('/webhooks/behind-json-parser', expressWebhook({ onEvent: handleEvent }));

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
