/**
 * Handlers built per request, as a Cloudflare Worker builds them (its `env` exists only inside
 * `fetch`): the default store is shared by every handler of the process for one endpoint, and a
 * missing secret fails the construction, not the deliveries.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentsError } from 'payments-sdk';
import { memoryStore } from 'payments-sdk/stores';
import { expressWebhook, type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliveryHeaders, eventBody, OTHER_SECRET, SECRET } from '../helpers/webhook-deliveries.js';

const quiet = { onError: () => {} };

function delivery(body: string, secret = SECRET): Request {
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body, { secret }) });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the default store', () => {
  it('is shared by handlers built per request: one delivery posted 3 times runs onEvent once', async () => {
    const onEvent = vi.fn();
    const body = eventBody({ id: 'evt_per_request_1' });
    // A Worker's fetch: a new handler for every request.
    const fetchHandler = (request: Request) => webhookHandler({ secret: SECRET, onEvent, ...quiet })(request);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await fetchHandler(delivery(body)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await answers[1]?.json()).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('is shared between webhookHandler and expressWebhook of one endpoint, and by any order of its secrets', async () => {
    const onEvent = vi.fn();
    const body = eventBody({ id: 'evt_per_request_2' });
    expect((await webhookHandler({ secret: [SECRET, OTHER_SECRET], onEvent, ...quiet })(delivery(body))).status).toBe(200);
    const server: Server = createServer((req, res) => {
      void expressWebhook({ secret: [OTHER_SECRET, SECRET], onEvent, ...quiet })(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const again = await fetch(url, { method: 'POST', body, headers: deliveryHeaders(body) });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, duplicate: true });
    } finally {
      server.closeAllConnections();
      server.close();
    }
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('keeps two endpoints apart: the same id under two different secrets is handled by each', async () => {
    const seen: string[] = [];
    const body = eventBody({ id: 'evt_per_request_3' });
    const endpoint = (secret: string, name: string) =>
      webhookHandler({ secret, onEvent: (event: WebhookEvent) => void seen.push(`${name}:${event.id}`), ...quiet });
    expect((await endpoint(SECRET, 'a')(delivery(body, SECRET))).status).toBe(200);
    expect((await endpoint(OTHER_SECRET, 'b')(delivery(body, OTHER_SECRET))).status).toBe(200);
    expect((await endpoint(OTHER_SECRET, 'b')(delivery(body, OTHER_SECRET))).status).toBe(200);
    expect(seen).toEqual(['a:evt_per_request_3', 'b:evt_per_request_3']);
  });

  it('is not used when the handler is given its own store', async () => {
    const onEvent = vi.fn();
    const body = eventBody({ id: 'evt_per_request_4' });
    await webhookHandler({ secret: SECRET, onEvent, ...quiet })(delivery(body));
    expect((await webhookHandler({ secret: SECRET, onEvent, store: memoryStore(), ...quiet })(delivery(body))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('keeps every endpoint of a multi-tenant process: a live claim of the first of 200 endpoints still holds', async () => {
    const body = eventBody({ id: 'evt_many_endpoints', type: 'payout.completed', data: { id: 1, status: 'completed' } });
    const secrets = Array.from({ length: 200 }, (_, i) => `whsec_tenant_${i}_${'x'.repeat(24)}`);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = vi.fn(() => held);
    const firstSecret = secrets[0] as string;
    const inFlight = webhookHandler({ secret: firstSecret, onEvent: first, ...quiet })(delivery(body, firstSecret));
    await vi.waitFor(() => expect(first).toHaveBeenCalledOnce());
    // 199 other tenants each handle an event meanwhile.
    for (const secret of secrets.slice(1)) {
      expect((await webhookHandler({ secret, onEvent: () => {}, ...quiet })(delivery(body, secret))).status).toBe(200);
    }
    // The duplicate of the first tenant's event is still seen as in flight: onEvent does not run twice at once.
    const duplicate = await webhookHandler({ secret: firstSecret, onEvent: first, ...quiet })(delivery(body, firstSecret));
    expect(duplicate.status).toBe(409);
    release();
    expect((await inFlight).status).toBe(200);
    expect((await webhookHandler({ secret: firstSecret, onEvent: first, ...quiet })(delivery(body, firstSecret))).status).toBe(200);
    expect(first).toHaveBeenCalledOnce();
  });
});

describe('a handler without a secret', () => {
  it.each([
    ['webhookHandler', webhookHandler],
    ['expressWebhook', expressWebhook],
  ] as const)('%s throws when built, naming the option and the variable', (name, build) => {
    vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', undefined);
    let error: unknown;
    try {
      build({ onEvent: () => {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toBe(
      `${name}: no webhook secret: pass { secret } to ${name}() or set the PAYMENTS_WEBHOOK_SECRET environment variable.`,
    );
    // `secret: process.env.X` with X unset is the same mistake.
    expect(() => build({ secret: process.env.PAYMENTS_WEBHOOK_SECRET, onEvent: () => {} })).toThrow(/no webhook secret/);
  });

  it('takes the secret from the environment when built', async () => {
    vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', SECRET);
    const onEvent = vi.fn();
    const handle = webhookHandler({ onEvent, store: memoryStore(), ...quiet });
    expect((await handle(delivery(eventBody()))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('waits for the first delivery while `next build` evaluates the route (its build has no runtime secrets)', async () => {
    vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', undefined);
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    const handle = webhookHandler({ onEvent: () => {}, ...quiet });
    // Should a delivery reach it anyway, it is answered 500, so the service retries.
    expect((await handle(delivery(eventBody()))).status).toBe(500);
  });
});
