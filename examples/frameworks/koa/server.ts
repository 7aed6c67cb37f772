/**
 * Koa 3: a payments webhook route next to a JSON API.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 *
 * The webhook router is mounted BEFORE the body parser, so the request stream is still unread when
 * `expressWebhook` gets Koa's Node request and response (`ctx.req`, `ctx.res`); `ctx.respond =
 * false` tells Koa that the answer is written already. Behind @koa/bodyparser, hand over the raw
 * body it keeps instead: `webhook(Object.assign(ctx.req, { rawBody: ctx.request.rawBody }), ctx.res)`.
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const app = new Koa();
const webhook = expressWebhook({
  secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
  onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
});

const webhooks = new Router();
webhooks.post('/webhooks/payments', async (ctx) => {
  ctx.respond = false;
  await webhook(ctx.req, ctx.res);
});
app.use(webhooks.routes());

// Only now the body parser, for the rest of the API.
const api = new Router();
api.get('/health', (ctx) => {
  ctx.body = { ok: true };
});
// The mistake, kept to show the SDK's answer: behind the body parser the stream was read, and every
// delivery is answered 400 naming the fix.
api.post('/webhooks/behind-body-parser', async (ctx) => {
  ctx.respond = false;
  await webhook(ctx.req, ctx.res);
});
// Behind the body parser, the way that works: hand over the raw body it kept.
api.post('/webhooks/payments-after-body-parser', async (ctx) => {
  ctx.respond = false;
  await webhook(Object.assign(ctx.req, { rawBody: ctx.request.rawBody }), ctx.res);
});
app.use(bodyParser());
app.use(api.routes());

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
