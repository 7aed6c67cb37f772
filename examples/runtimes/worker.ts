/**
 * A Cloudflare Worker: a checkout route and the webhook endpoint, deduplicated on D1.
 * wrangler.jsonc: `"d1_databases": [{ "binding": "DB", … }]`, `PAYMENTS_BASE_URL` under `vars`,
 * `PAYMENTS_API_KEY` and `PAYMENTS_WEBHOOK_SECRET` as secrets (`wrangler secret put`).
 */
import { PaymentsClient } from 'payments-sdk';
import { type D1DatabaseLike, d1DedupeStore, webhookHandler } from 'payments-sdk/webhooks';

/** The Worker's bindings (with @cloudflare/workers-types, `DB: D1Database` fits too). */
interface Env {
  PAYMENTS_API_KEY: string;
  PAYMENTS_BASE_URL: string;
  PAYMENTS_WEBHOOK_SECRET: string;
  DB: D1DatabaseLike;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);

    if (pathname === '/webhooks') {
      // Built per request (env exists only here): the D1 store is shared by every isolate and
      // survives restarts, so a duplicate delivery never runs the handler twice.
      const handle = webhookHandler({
        secret: env.PAYMENTS_WEBHOOK_SECRET,
        dedupe: d1DedupeStore(env.DB),
        on: {
          'payment.succeeded': async (event) => {
            await env.DB.prepare('INSERT INTO paid_orders (payment_uuid, amount) VALUES (?, ?)')
              .bind(event.data.uuid, event.data.gross_amount)
              .run();
          },
        },
      });
      return handle(request);
    }

    if (pathname === '/checkout' && request.method === 'POST') {
      // Built per request too: construction does no I/O, and the connections belong to the
      // runtime's fetch, not to the client.
      const client = new PaymentsClient({ apiKey: env.PAYMENTS_API_KEY, baseUrl: env.PAYMENTS_BASE_URL });
      const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF', description: 'Order #1042' });
      return Response.redirect(session.checkout_url, 303);
    }

    return new Response('Not found', { status: 404 });
  },
};
