// A Fastify route handing the raw Node request and response to expressWebhook.
import Fastify from 'fastify';
import { PaymentsClient } from 'payments-sdk';
import { expressWebhook } from 'payments-sdk/webhooks';

const fastify = Fastify();
const onWebhook = expressWebhook({ secret: process.env.PAYMENTS_WEBHOOK_SECRET, onEvent: async (event) => console.log(event.type) });

// The recipe: raw bytes in the webhook route's scope, Fastify's request handed over as it is.
await fastify.register(async (scope) => {
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  scope.post('/webhooks/payments', async (request, reply) => {
    reply.hijack();
    await onWebhook(request, reply.raw);
  });
});

// The Node request under Fastify's (a route with no body parser in the way).
fastify.put('/webhooks/raw', async (request, reply) => {
  reply.hijack();
  await onWebhook(request.raw, reply.raw);
});

fastify.get('/balance', async () => {
  const client = new PaymentsClient();
  return client.wallets.list();
});

export default fastify;
