// A Fastify route handing the raw Node request and response to expressWebhook.
import Fastify from 'fastify';
import { PaymentsClient } from 'payments-sdk';
import { expressWebhook } from 'payments-sdk/webhooks';

const fastify = Fastify();
const onWebhook = expressWebhook({ secret: process.env.PAYMENTS_WEBHOOK_SECRET, onEvent: async (event) => console.log(event.type) });

fastify.post('/webhooks/payments', async (request, reply) => {
  reply.hijack();
  await onWebhook(request.raw, reply.raw);
});

fastify.get('/balance', async () => {
  const client = new PaymentsClient();
  return client.wallets.list();
});

export default fastify;
