// An Express 5 shop: a checkout route, the webhook route, and the same handler on a bare node:http server.
import http from 'node:http';
import express from 'express';
import { type CurrencyCode, InvalidParamsError, type KnownCurrencyCode, PaymentsClient, toMinorUnits } from 'payments-sdk';
import { expressWebhook, type PaymentWebhookEvent } from 'payments-sdk/webhooks';

const client = new PaymentsClient(); // PAYMENTS_API_KEY, PAYMENTS_BASE_URL
const app = express();

async function fulfil(event: PaymentWebhookEvent): Promise<void> {
  console.log(event.data.uuid, event.data.net_amount_to_merchant, event.data.currency);
}

const onWebhook = expressWebhook({ secret: process.env.PAYMENTS_WEBHOOK_SECRET, on: { 'payment.succeeded': fulfil } });
app.post('/webhooks/payments', onWebhook);
app.use(express.json());

app.post('/checkout', async (req, res) => {
  const currency: CurrencyCode = 'XOF';
  try {
    const session = await client.checkoutSessions.create({ amount: toMinorUnits(Number(req.body.total), currency), currency });
    res.redirect(303, session.checkout_url);
  } catch (error) {
    if (error instanceof InvalidParamsError) res.status(400).json({ issues: error.issues });
    else throw error;
  }
});

http.createServer(expressWebhook({ secret: 'whsec_x', onEvent: () => {} }));
http.createServer((req, res) => void onWebhook(req, res));

// The request machinery is not part of the client's type.
// @ts-expect-error create/retrieve/getUnpaginated/list are internal
client.list('/payments', {}, {});
// Autocomplete lists ISO 4217 codes; a made-up one is not among them (it still type-checks as CurrencyCode).
// @ts-expect-error 'CFA' is not an ISO 4217 code
const wrong: KnownCurrencyCode = 'CFA';
const later: CurrencyCode = 'ZZZ';
console.log(wrong, later);

export { app };
