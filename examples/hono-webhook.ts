/**
 * A Hono app receiving the payments service's webhooks. The same file runs on Bun (`bun run`),
 * Deno (`deno serve`) and Cloudflare Workers (`export default app`).
 *
 * Hand `c.req.raw`, the untouched Request, to the handler. Do not put a `validator('json', …)`
 * or a `c.req.json()` before it on this route: they consume the body the signature covers.
 */
import { Hono } from 'hono';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError, webhookHandler } from 'payments-sdk/webhooks';

type Bindings = { PAYMENTS_WEBHOOK_SECRET: string };

const app = new Hono<{ Bindings: Bindings }>();

async function handle(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case 'payment.succeeded':
      console.log(`paid: ${event.data.uuid} (${event.data.gross_amount} ${event.data.currency})`);
      break;
    case 'payment.failed':
      console.log(`failed: ${event.data.uuid}: ${event.data.failure_reason}`);
      break;
    default:
      // payout.* events, and types this SDK version does not know yet: acknowledge, never throw.
      console.log(`received ${event.type}`);
  }
}

// On Workers the secret is a binding, known only per request: create the handler once, lazily.
let webhook: ((request: Request) => Promise<Response>) | undefined;
app.post('/webhooks/payments', (c) => {
  // Without a binding (Bun, Deno, Node), `secret: undefined` falls back to env PAYMENTS_WEBHOOK_SECRET.
  webhook ??= webhookHandler({ secret: c.env?.PAYMENTS_WEBHOOK_SECRET, onEvent: handle });
  return webhook(c.req.raw);
});

// By hand: `c.req.text()` gives the raw body (Hono caches it, so it works even after c.req.json()).
app.post('/webhooks/payments-manual', async (c) => {
  try {
    const event = await verifyWebhook({
      payload: await c.req.text(),
      headers: c.req.raw.headers,
      secret: c.env?.PAYMENTS_WEBHOOK_SECRET ?? globalThis.process?.env.PAYMENTS_WEBHOOK_SECRET ?? '',
    });
    await handle(event);
    return c.json({ received: true });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return c.json({ error: error.message, reason: error.reason }, 400);
    throw error;
  }
});

export default app;
