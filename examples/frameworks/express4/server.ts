/**
 * Express 4: a payments webhook route next to a JSON API.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 *
 * The webhook route gets the raw bytes from `express.raw({ type: 'application/json' })` (a Buffer
 * in req.body, which `expressWebhook` takes as is) and is declared BEFORE `app.use(express.json())`:
 * a body parsed by express.json() cannot be turned back into the signed bytes. Without
 * express.raw(), `expressWebhook` reads the stream itself (the Express 5 recipe does that).
 */
import express from 'express';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const app = express();

app.post(
  '/webhooks/payments',
  express.raw({ type: 'application/json', limit: '1mb' }),
  expressWebhook({
    secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
    onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
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
