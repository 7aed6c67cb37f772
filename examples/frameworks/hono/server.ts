/**
 * The Hono app (app.ts) on Node, through @hono/node-server.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 */
import { serve } from '@hono/node-server';
import app from './app.ts';

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
