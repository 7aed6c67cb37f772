/**
 * How requests reach the mock (mock.fetch, msw handlers, a real 127.0.0.1 port), how deliveries
 * leave it (a fetch-style handler, a loopback URL), faults, routing errors and the clock.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as msw from 'msw';
import { APIConnectionError, InternalServerError, PaymentsClient } from 'payments-sdk';
import { createMockService, type MockHttpServer, MockServiceError } from 'payments-sdk/testing';
import { webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signWebhookPayload } from '../../src/webhooks/sign.js';
import { caught } from '../helpers/caught.js';
import { chargeParams } from '../helpers/fixtures.js';
import { clientFor, raw, setup } from '../helpers/mock-service.js';
import { useMswServer } from '../helpers/msw.js';

describe('msw handlers (code that cannot take a custom fetch)', () => {
  const server = useMswServer();
  const mock = createMockService();

  it('answers the global fetch of a client without a fetch option', async () => {
    server.use(...mock.handlers);
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, maxRetries: 0 });
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    await mock.paySession(session.reference);
    expect((await client.checkoutSessions.findPayment(session.reference))?.status).toBe('succeeded');
    expect(mock.handlers).toBe(mock.handlers);
  });

  it('createHandlers(msw) builds the same from a module the caller loaded', async () => {
    const other = createMockService({ baseUrl: 'https://second.payments.test/' });
    server.use(...other.createHandlers(msw));
    const response = await fetch('https://second.payments.test/api/v1/payments', { headers: { Authorization: `Bearer ${other.apiKey}` } });
    expect(response.status).toBe(200);
    expect((await response.json()).meta.total).toBe(0);
    expect(() => other.createHandlers({} as never)).toThrow(MockServiceError);
  });
});

describe('mock.fetch', () => {
  it('intercepts nothing global', async () => {
    const before = globalThis.fetch;
    const mock = createMockService();
    await clientFor(mock).payments.list();
    expect(globalThis.fetch).toBe(before);
  });

  it('answers unknown routes 404, other methods 405, bad JSON 400', async () => {
    const mock = createMockService();
    expect(await raw(mock, 'GET', '/refunds')).toMatchObject({
      status: 404,
      body: { message: 'La route /api/v1/refunds est introuvable.' },
    });
    expect((await raw(mock, 'GET', '/wallets/1')).status).toBe(404);
    const put = await raw(mock, 'PUT', '/payments');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect((await raw(mock, 'DELETE', '/payments/x')).headers.get('allow')).toBe('GET');
    expect(await raw(mock, 'POST', '/payments', { body: '{"amount":' })).toMatchObject({ status: 400 });
    expect(await raw(mock, 'POST', '/payments', { body: '[1]' })).toMatchObject({ status: 400 });
    // A route is matched before the key is checked, as in the service's router.
    expect((await raw(mock, 'GET', '/refunds', { key: null })).status).toBe(404);
  });

  it('rejects like fetch when the signal is already aborted', async () => {
    const mock = createMockService();
    const controller = new AbortController();
    controller.abort();
    await expect(mock.fetch(`${mock.baseUrl}/api/v1/payments`, { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('faults', () => {
  it('a 503 with Retry-After: 0 is retried by the client, which then succeeds', async () => {
    const mock = createMockService();
    mock.injectFault({ status: 503, retryAfter: 0, times: 2, path: '/payments' });
    const payment = await clientFor(mock, mock.apiKey, 2).payments.create(chargeParams);
    expect(payment.status).toBe('pending');
    expect(mock.requests.map((r) => r.status)).toEqual([503, 503, 201]);
    expect(JSON.stringify(mock.requests)).not.toContain(mock.apiKey);
  });

  it('a network fault without retries is an APIConnectionError, and only matching requests are hit', async () => {
    const mock = createMockService();
    mock.injectFault({ network: true, method: 'GET', path: /checkout-sessions/ });
    const client = clientFor(mock);
    expect((await client.payments.list()).data).toEqual([]);
    expect(await caught(client.checkoutSessions.list())).toBeInstanceOf(APIConnectionError);
    expect((await client.checkoutSessions.list()).data).toEqual([]);
    expect(() => mock.injectFault({ times: 0 })).toThrow(MockServiceError);
    mock.injectFault({ status: 500 });
    const error = await caught(client.wallets.list());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toBe('Erreur 500 injectée par le service simulé.');
  });

  it('reset() forgets resources, deliveries, requests and faults, and seeds again', async () => {
    const { mock, client } = setup({ seed: { payments: [{ gross_amount: 1 }] } });
    const payment = await client.payments.create(chargeParams);
    await mock.settlePayment(payment.uuid);
    mock.injectFault({ status: 500 });
    mock.reset();
    expect(mock.deliveries).toEqual([]);
    expect(mock.requests).toEqual([]);
    expect((await client.payments.list()).data.map((p) => p.gross_amount)).toEqual([1]);
  });
});

describe('mock.listen(): a real port on 127.0.0.1', () => {
  const mock = createMockService();
  let server: MockHttpServer;
  beforeAll(async () => {
    server = await mock.listen();
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves the client over real HTTP; list links point back to the port', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: server.url, maxRetries: 0 });
    await client.payments.create(chargeParams);
    await client.payments.create(chargeParams, { idempotencyKey: 'k' });
    const replay = await client.payments.create(chargeParams, { idempotencyKey: 'k' }).withResponse();
    expect(replay.replayed).toBe(true);
    const page = await client.payments.list({ per_page: 1 });
    expect(page.links.next).toBe(`${server.url}/api/v1/payments?per_page=1&page=2`);
    expect(await client.payments.list({ per_page: 1 }).toArray()).toHaveLength(2);
    const unauthenticated = await fetch(`${server.url}/api/v1/payments`);
    expect(unauthenticated.status).toBe(401);
  });

  it('refuses a host that is not loopback', async () => {
    await expect(mock.listen({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });
});

describe('mock.deliver()', () => {
  let received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let hook: Server;
  let hookUrl = '';
  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/webhooks/payments`;
  });
  afterAll(async () => {
    hook.closeAllConnections();
    await new Promise((resolve) => hook.close(resolve));
  });

  it('hands a fetch-style handler a POST Request with the raw body and the signature headers', async () => {
    const { mock, client } = setup();
    const payment = await client.payments.create(chargeParams);
    const delivery = await mock.settlePayment(payment.uuid);
    const handler = vi.fn(async (request: Request) => {
      const body = await request.text();
      const ok =
        request.method === 'POST' && request.headers.get('x-service-signature') === (await signWebhookPayload(body, mock.webhookSecret));
      return new Response(null, { status: ok ? 200 : 400 });
    });
    expect((await mock.deliver(delivery, handler)).status).toBe(200);
    expect(handler.mock.calls[0]?.[0]?.url).toBe('http://localhost/webhooks');
    // A tampered body keeps the original signature: the endpoint must refuse it.
    expect((await mock.deliver(delivery, handler, { body: delivery.body.replace('"succeeded"', '"failed"') })).status).toBe(400);
    expect((await mock.deliver(delivery, handler, { headers: { 'X-Service-Signature': '0'.repeat(64) } })).status).toBe(400);
  });

  it('a header override replaces the header whatever its case (a tampered signature never still verifies)', async () => {
    const { mock, client } = setup();
    const payment = await client.payments.create(chargeParams);
    const delivery = await mock.settlePayment(payment.uuid);
    const endpoint = webhookHandler({ secret: mock.webhookSecret, onEvent: () => {} });
    for (const name of ['x-service-signature', 'X-SERVICE-SIGNATURE', 'X-Service-Signature']) {
      const answer = await mock.deliver(delivery, endpoint, { headers: { [name]: '0'.repeat(64) } });
      expect(answer.status, name).toBe(400);
    }
    const mismatch = await mock.deliver(delivery, endpoint, { headers: { 'x-service-event': 'payment.failed' } });
    expect(mismatch.status).toBe(400);
  });

  it('POSTs to a URL on 127.0.0.1, exactly the signed bytes', async () => {
    received = [];
    const { mock, client } = setup();
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    const delivery = await mock.paySession(session.reference);
    const response = await mock.deliver(delivery, hookUrl);
    expect(response.status).toBe(204);
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got?.body).toBe(delivery.body);
    expect(got?.headers['x-service-event']).toBe('payment.succeeded');
    expect(got?.headers['x-service-signature']).toBe(await signWebhookPayload(got?.body ?? '', mock.webhookSecret));
    expect(got?.headers['content-type']).toBe('application/json');
  });

  it('refuses any host that is not loopback, without sending anything', async () => {
    const { mock } = setup();
    const delivery = await mock.createDelivery({ type: 'payment.succeeded', data: { uuid: 'x' } });
    const spy = vi.spyOn(globalThis, 'fetch');
    try {
      for (const url of [
        'https://example.com/hook',
        'http://10.0.0.8/hook',
        'http://127.0.0.1.nip.io/hook',
        'ftp://127.0.0.1/hook',
        'not a url',
      ]) {
        await expect(mock.deliver(delivery, url)).rejects.toBeInstanceOf(MockServiceError);
      }
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    await expect(mock.deliver(null as never, hookUrl)).rejects.toThrow(/Actions without an event return null/);
  });

  it('createDelivery signs any event, e.g. a type the merchant does not know yet', async () => {
    const { mock } = setup();
    const delivery = await mock.createDelivery({ id: 'evt_custom', type: 'refund.created', data: { amount: 1 } });
    expect(delivery.event).toEqual({ id: 'evt_custom', type: 'refund.created', data: { amount: 1 } });
    expect(delivery.headers['X-Service-Signature']).toBe(await signWebhookPayload(delivery.body, mock.webhookSecret));
    expect(mock.deliveries.at(-1)).toBe(delivery);
  });
});

describe('the clock', () => {
  it('takes an injected now() and adds advance() to it', async () => {
    let t = Date.UTC(2026, 5, 1, 8, 0, 0);
    const { mock, client } = setup({ now: () => new Date(t) });
    expect((await client.payments.create(chargeParams)).created_at).toBe('2026-06-01T08:00:00+00:00');
    t += 60_000;
    expect(mock.now().toISOString()).toBe('2026-06-01T08:01:00.000Z');
    expect(mock.advance(3_600_000).toISOString()).toBe('2026-06-01T09:01:00.000Z');
    expect((await client.payments.create(chargeParams)).created_at).toBe('2026-06-01T09:01:00+00:00');
    expect(() => mock.advance(-1)).toThrow(MockServiceError);
  });

  it('freezes at a given instant; refuses an invalid one', () => {
    const mock = createMockService({ now: new Date('2026-01-01T00:00:00Z') });
    expect(mock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(mock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(() => createMockService({ now: 'not a date' })).toThrow(MockServiceError);
  });
});
