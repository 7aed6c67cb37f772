/**
 * A Cloudflare Worker: a checkout route and the webhook endpoint, exactly once on D1: the effect's
 * statements run in one D1 batch with the record of the delivery, so a duplicate's roll back.
 * wrangler.jsonc: `"d1_databases": [{ "binding": "DB", … }]`, `PAYMENTS_BASE_URL` under `vars`,
 * `PAYMENTS_API_KEY` and `PAYMENTS_WEBHOOK_SECRET` as secrets (`wrangler secret put`).
 */
import { PaymentsClient } from 'payments-sdk';
import { d1Store } from 'payments-sdk/stores';
import { webhookHandler } from 'payments-sdk/webhooks';

/** The Worker's bindings (with @cloudflare/workers-types, write `DB: D1Database`). */
interface Env {
  PAYMENTS_API_KEY: string;
  PAYMENTS_BASE_URL: string;
  PAYMENTS_WEBHOOK_SECRET: string;
  DB: Parameters<typeof d1Store>[0];
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);

    if (pathname === '/webhooks') {
      // Built per request (env exists only here): the D1 store is shared by every isolate and
      // survives restarts. The handler returns its statements instead of running them: the store
      // runs them in one batch with the record of the delivery, so a duplicate's effect rolls back.
      const handle = webhookHandler({
        secret: env.PAYMENTS_WEBHOOK_SECRET,
        store: d1Store(env.DB),
        on: {
          'payment.succeeded': (event) => [
            env.DB.prepare('INSERT INTO paid_orders (payment_uuid, amount) VALUES (?, ?)').bind(event.data.uuid, event.data.gross_amount),
          ],
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
