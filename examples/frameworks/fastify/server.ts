/**
 * Fastify 5: a payments webhook route next to a JSON API.
 *
 *   PAYMENTS_WEBHOOK_SECRET=whsec_… node server.ts
 *
 * Fastify parses JSON bodies before any handler runs, and the signature covers the raw bytes. So
 * the webhook route lives in its own plugin scope, whose `application/json` parser keeps the body
 * as a Buffer (`parseAs: 'buffer'`); the rest of the app keeps Fastify's JSON parser.
 * `expressWebhook` takes Fastify's request (the Buffer in request.body) and writes the answer to
 * the Node response, so the reply is hijacked: Fastify sends nothing itself.
 */
import Fastify from 'fastify';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const app = Fastify();
const webhook = expressWebhook({
  secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
  onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
});

await app.register(async (scope) => {
  // Only inside this scope: the raw bytes, unparsed.
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
    done(null, body);
  });
  scope.post('/webhooks/payments', async (request, reply) => {
    reply.hijack();
    await webhook(request, reply.raw);
  });
});

app.get('/health', async () => ({ ok: true }));

// The mistake, kept to show the SDK's answer: with Fastify's own JSON parser, request.body is an
// object, the signed bytes are gone, and every delivery is answered 400 naming the fix.
app.post('/webhooks/with-json-parser', async (request, reply) => {
  reply.hijack();
  await webhook(request, reply.raw);
});

const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`listening on ${address}`);
