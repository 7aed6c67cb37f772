/**
 * Deno: a checkout route and the webhook endpoint on `Deno.serve`. Run with exactly the
 * permissions it needs:
 *
 *   deno run --allow-env=PAYMENTS_API_KEY,PAYMENTS_BASE_URL,PAYMENTS_WEBHOOK_SECRET,PORT \
 *     --allow-net=127.0.0.1,pay.example.com deno-server.ts
 *
 * (`--allow-net`: the address it listens on, and your service's host from PAYMENTS_BASE_URL.)
 */
import { PaymentsClient } from 'payments-sdk';
import { webhookHandler } from 'payments-sdk/webhooks';

// Module scope: built once at start-up from the environment, reused by every request.
const client = new PaymentsClient();
const paid = new Set<string>();
const handleWebhook = webhookHandler({
  on: { 'payment.succeeded': (event) => void paid.add(event.data.uuid) },
});

Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 8000) }, async (request) => {
  const { pathname } = new URL(request.url);
  if (pathname === '/webhooks') return handleWebhook(request);
  if (pathname === '/checkout' && request.method === 'POST') {
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF', description: 'Order #1042' });
    return Response.redirect(session.checkout_url, 303);
  }
  if (pathname === '/paid') return Response.json([...paid]);
  return new Response('Not found', { status: 404 });
});
