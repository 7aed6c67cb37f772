/**
 * Bun: a checkout route and the webhook endpoint on `Bun.serve`. Run with `bun bun-server.ts`
 * (Bun reads PAYMENTS_API_KEY, PAYMENTS_BASE_URL and PAYMENTS_WEBHOOK_SECRET from the
 * environment or a .env file).
 */
import { PaymentsClient } from 'payments-sdk';
import { webhookHandler } from 'payments-sdk/webhooks';

// Module scope: built once at start-up from the environment, reused by every request.
const client = new PaymentsClient();
const paid = new Set<string>();
const handleWebhook = webhookHandler({
  on: { 'payment.succeeded': (event) => void paid.add(event.data.uuid) },
});

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 3000),
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === '/webhooks') return handleWebhook(request);
    if (pathname === '/checkout' && request.method === 'POST') {
      const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF', description: 'Order #1042' });
      return Response.redirect(session.checkout_url, 303);
    }
    if (pathname === '/paid') return Response.json([...paid]);
    return new Response('Not found', { status: 404 });
  },
});
console.log(`listening on ${server.url}`);
