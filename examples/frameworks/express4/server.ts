/**
 * Express 4: a payments webhook router next to a JSON API.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 *
 * The webhook route gets the raw bytes from `express.raw({ type: 'application/json' })` (a Buffer
 * in req.body, which `expressWebhook` takes as is), and its router is mounted BEFORE
 * `app.use(express.json())`: a body parsed by express.json() cannot be turned back into the signed
 * bytes. Without express.raw(), `expressWebhook` reads the stream itself (see the Express 5 recipe).
 */
import express from 'express';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const webhooks = express.Router();
webhooks.post(
  '/payments',
  express.raw({ type: 'application/json', limit: '1mb' }),
  expressWebhook({
    secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
    onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
  }),
);

const app = express();
app.use('/webhooks', webhooks);
app.use(express.json()); // after the webhooks: the JSON API
app.post('/orders', (req, res) => {
  res.status(201).json({ received: req.body });
});

// The mistake, kept to show the SDK's answer: a webhook route behind express.json() gets a parsed
// body, and every delivery is answered 400 with the fix.
app.post('/webhooks-behind-json-parser', expressWebhook({ onEvent: handleEvent }));

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
