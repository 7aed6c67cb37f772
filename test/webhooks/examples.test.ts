/** The webhook examples run as written: a signed delivery to each is answered 200, a forged one 400. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliveryHeaders, eventBody, OTHER_SECRET, SECRET } from './support.js';

beforeAll(() => {
  vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', SECRET);
  vi.stubEnv('REDIS_URL', '');
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterAll(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const body = eventBody({ id: 'evt_example' });
const signed = () => ({ method: 'POST', body, headers: deliveryHeaders(body) });
const forged = () => ({ method: 'POST', body, headers: deliveryHeaders(body, { secret: OTHER_SECRET }) });

describe('examples', () => {
  it('nextjs-route.ts: the exported POST (its only export, as Next.js requires of a route file)', async () => {
    const route = await import('../../examples/nextjs-route.js');
    expect(Object.keys(route)).toEqual(['POST']);
    expect((await route.POST(new Request('http://127.0.0.1/api/webhooks/payments', signed()))).status).toBe(200);
    expect((await route.POST(new Request('http://127.0.0.1/api/webhooks/payments', forged()))).status).toBe(400);
    expect(console.log).toHaveBeenCalledWith(expect.stringContaining('paid by 9b2f8a1e'));
  });

  it('hono-webhook.ts: both routes', async () => {
    const { default: app } = await import('../../examples/hono-webhook.js');
    for (const path of ['/webhooks/payments', '/webhooks/payments-manual']) {
      expect((await app.request(path, signed())).status).toBe(200);
      expect((await app.request(path, forged())).status).toBe(400);
    }
  });

  it('express-webhook.ts: the app on 127.0.0.1', async () => {
    const { app } = await import('../../examples/express-webhook.js');
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payments`;
      expect((await fetch(url, signed())).status).toBe(200);
      expect(await (await fetch(url, signed())).json()).toEqual({ received: true, duplicate: true });
      expect((await fetch(url, forged())).status).toBe(400);
      const health = await fetch(url.replace('/webhooks/payments', '/health'));
      expect(await health.json()).toEqual({ ok: true });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
