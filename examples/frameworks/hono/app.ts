/**
 * Hono: a payments webhook route. The routes are the same wherever Hono runs: on Node through
 * server.ts (@hono/node-server), on Bun (`export default app`), Deno (`deno serve`) and Cloudflare
 * Workers (where `handleEvent`, your code, must not use shared/orders.ts's node:fs).
 *
 * Hand `c.req.raw`, the untouched Request, to the handler. Do not put a `validator('json', …)`
 * or a `c.req.json()` before it on this route: they consume the body the signature covers.
 */
import { Hono } from 'hono';
import { verifyWebhook, WebhookVerificationError, webhookHandler } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

type Bindings = { PAYMENTS_WEBHOOK_SECRET?: string };

const app = new Hono<{ Bindings: Bindings }>();

// On Workers the secret is a binding, known only per request: create the handler once, lazily.
let webhook: ((request: Request) => Promise<Response>) | undefined;
app.post('/webhooks/payments', (c) => {
  // Without a binding (Node, Bun, Deno), `secret: undefined` falls back to env PAYMENTS_WEBHOOK_SECRET.
  webhook ??= webhookHandler({ secret: c.env?.PAYMENTS_WEBHOOK_SECRET, onEvent: handleEvent });
  return webhook(c.req.raw);
});

// By hand: `c.req.text()` gives the raw body (Hono caches it, so it works even after c.req.json()).
// No deduplication here: webhookHandler above does that.
app.post('/webhooks/payments-manual', async (c) => {
  try {
    const event = await verifyWebhook({
      payload: await c.req.text(),
      headers: c.req.raw.headers,
      secret: c.env?.PAYMENTS_WEBHOOK_SECRET ?? globalThis.process?.env.PAYMENTS_WEBHOOK_SECRET ?? '',
    });
    await handleEvent(event);
    return c.json({ received: true });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return c.json({ error: error.message, reason: error.reason }, 400);
    throw error;
  }
});

// The mistake, kept to show the SDK's answer: a middleware that reads the JSON body first leaves
// the handler a used Request, and every delivery is answered 400 with the fix.
app.post(
  '/webhooks/after-json',
  async (c, next) => {
    console.log('delivery of', ((await c.req.json()) as { type?: string }).type);
    await next();
  },
  (c) => {
    webhook ??= webhookHandler({ secret: c.env?.PAYMENTS_WEBHOOK_SECRET, onEvent: handleEvent });
    return webhook(c.req.raw);
  },
);

export default app;
