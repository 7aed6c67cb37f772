/**
 * Nothing secret or personal reaches an exported span or metric: the API key, the webhook secret and
 * a customer's phone number, e-mail address and name are planted everywhere they could travel
 * (params, headers, ids, list filters, answers, error bodies echoing them, webhook payloads, a
 * handler's error, bulk rows), then every exported span (name, attributes, events, status, links)
 * and every metric data point is searched for each of them.
 */
import { PaymentsClient } from 'payments-sdk';
import { signWebhookPayload, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer as serveFetch } from '../../src/testing/node-server.js';
import { checkoutSession, payment } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../network/server.js';
import { otelHarness } from './otel.js';

const KEY = 'sk_live_LeakCanaryKey0123456789';
const SECRET = 'whsec_LeakCanarySecret9876';
const PHONE = '221779998877';
const EMAIL = 'aminata.canary@example.com';
const NAME = 'Aminata Canarydiallo';
const PLANTED = { KEY, SECRET, PHONE, EMAIL, NAME, PHONE_TAIL: '9998877', EMAIL_LOCAL: 'aminata.canary' };

const otel = otelHarness();
let service: TestServer;

beforeAll(async () => {
  // A service that echoes everything back: in answers, in error messages, in headers.
  service = await startServer(({ req, res, seen, server }) => {
    const echo = `Bearer ${KEY} ${PHONE} ${EMAIL} ${NAME} ${seen.body}`;
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/api/v1/payments' && seen.n % 2 === 1) {
      return server.json(
        res,
        422,
        { message: `Numéro ${PHONE} refusé pour ${NAME} <${EMAIL}>: ${echo}`, errors: { phone: [echo] } },
        { 'x-echo': EMAIL },
      );
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/payments')
      return server.json(res, 201, { data: payment({ failure_reason: echo }) });
    if (req.method === 'POST' && url.pathname === '/api/v1/checkout-sessions') {
      return server.json(res, 201, {
        data: checkoutSession({ payer_name: NAME, payer_email: EMAIL, payer_phone: PHONE, description: echo }),
      });
    }
    if (url.pathname.startsWith('/api/v1/payouts') && req.method === 'GET') {
      return server.json(res, 503, { message: echo }, { 'retry-after': '0' });
    }
    if (url.pathname.startsWith('/api/v1/payouts'))
      return server.json(res, 201, { data: { id: seen.n, amount: 1000, currency: 'XOF', status: 'pending' } });
    server.json(res, 404, { message: `Introuvable: ${echo}` });
  });
});
afterAll(() => service.close());

describe('telemetry leaks', () => {
  it('no exported span or metric holds the key, the secret, a phone, an e-mail or a name', async () => {
    const client = new PaymentsClient({
      apiKey: KEY,
      baseUrl: service.origin,
      webhookSecret: SECRET,
      telemetry: otel.telemetry,
      headers: { 'x-customer-email': EMAIL },
      maxRetries: 1,
      retryBackoff: { initialMs: 1, maxMs: 2 },
    });
    const charge = {
      amount: 5000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: PHONE,
      payer_name: NAME,
      payer_email: EMAIL,
    };
    await expect(client.payments.create(charge)).rejects.toThrow();
    await client.payments.create(charge, { headers: { 'x-payer': NAME } });
    await client.checkoutSessions.create({ amount: 5000, currency: 'XOF', description: `For ${NAME} ${EMAIL} ${PHONE}` });
    await expect(client.payments.retrieve(EMAIL)).rejects.toThrow();
    await expect(client.checkoutSessions.retrieve(PHONE)).rejects.toThrow();
    // biome-ignore lint/suspicious/noExplicitAny: a filter the SDK passes through, holding personal data.
    await expect(client.payouts.list({ email: EMAIL, phone: PHONE, name: NAME } as any)).rejects.toThrow();
    // biome-ignore lint/suspicious/noExplicitAny: bad params that quote personal data in their error.
    await expect(client.payments.create({ ...charge, payer_email: `${NAME} ${PHONE}` } as any)).rejects.toThrow();
    const batch = client.payouts.createMany(
      [
        {
          amount: 1000,
          currency: 'XOF',
          destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: PHONE },
          reference: EMAIL,
        },
      ],
      { batchId: 'payroll-canary', key: (row) => String(row.reference).length },
    );
    await batch.summary();

    const handler = webhookHandler({
      secret: SECRET,
      telemetry: otel.telemetry,
      onError: () => {},
      onEvent: (event) => {
        if (event.id === 'evt_throw') throw new Error(`cannot reach ${NAME} at ${PHONE} / ${EMAIL} with ${SECRET}`);
      },
    });
    const endpoint = await serveFetch(handler);
    try {
      const session = checkoutSession({ payer_name: NAME, payer_email: EMAIL, payer_phone: PHONE });
      for (const [id, secret] of [
        ['evt_ok', SECRET],
        ['evt_throw', SECRET],
        ['evt_bad', `${SECRET}x`],
      ] as const) {
        const body = JSON.stringify({
          id,
          type: 'checkout_session.completed',
          data: session,
          customer: { phone: PHONE, email: EMAIL, name: NAME },
        });
        await fetch(endpoint.url, { method: 'POST', body, headers: { 'x-service-signature': await signWebhookPayload(body, secret) } });
      }
      await fetch(`${endpoint.url}?email=${EMAIL}`, { method: 'POST', body: `${PHONE} ${NAME}` });
    } finally {
      await endpoint.close();
    }

    // Planted for real: the service saw each of them.
    const sent = JSON.stringify(service.requests);
    for (const planted of [KEY, PHONE, EMAIL, NAME]) expect(sent).toContain(planted);

    const spans = otel.spans();
    // The run was exercised: calls, attempts (with a retry), deliveries, the bulk run.
    const names = new Set(spans.map((span) => span.name));
    for (const name of [
      'payments.create',
      'POST /api/v1/payments',
      'checkoutSessions.create',
      'payments.retrieve',
      'payouts.list',
      'payouts.create',
      'payments.bulk',
      'payments.webhook',
    ]) {
      expect(names).toContain(name);
    }
    expect(spans.filter((span) => span.name === 'payments.webhook')).toHaveLength(4);
    const exported = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })),
    );
    const metrics = JSON.stringify(await otel.metrics());
    expect(metrics).toContain('http.client.request.duration');
    for (const [what, planted] of Object.entries(PLANTED)) {
      expect(exported.includes(planted), `${what} in a span`).toBe(false);
      expect(metrics.includes(planted), `${what} in a metric`).toBe(false);
    }
  });
});
