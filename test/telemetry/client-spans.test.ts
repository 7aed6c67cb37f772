/**
 * The client's spans and metrics through the real OpenTelemetry SDK, against a real loopback server:
 * one span per SDK call in the caller's context, one CLIENT span per HTTP attempt under it with the
 * HTTP client conventions' attributes, and `http.client.request.duration` recorded per attempt.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { NotFoundError, PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, chargeParams, checkoutSession, envelope, LIVE_KEY, payment } from '../helpers/fixtures.js';
import { answerCreation, startServer, type TestServer } from '../network/server.js';
import { otelHarness, parentOf, seconds } from './otel.js';

const otel = otelHarness();
let server: TestServer;
let port: number;
let flaky = 0;

beforeAll(async () => {
  server = await startServer((x) => {
    const { req, res } = x;
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') return answerCreation(x);
    if (url.pathname === '/api/v1/payments/unknown-payment') return server.json(res, 404, { message: 'Paiement introuvable.' });
    if (url.pathname.startsWith('/api/v1/payments/')) return server.json(res, 200, { data: payment() });
    if (url.pathname === '/api/v1/payments') {
      const page = Number(url.searchParams.get('page') ?? '1');
      return server.json(res, 200, envelope([payment()], { page, lastPage: 2, origin: server.origin }));
    }
    if (url.pathname.startsWith('/api/v1/checkout-sessions/')) {
      // The first read of each pair fails with a 503: the SDK retries.
      flaky += 1;
      if (flaky % 2 === 1) return server.json(res, 503, { message: 'Service indisponible.' });
      return server.json(res, 200, { data: checkoutSession() });
    }
    // A proxy's page where JSON was expected.
    if (url.pathname === '/api/v1/broken') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>gateway</html>');
      return;
    }
    if (url.pathname === '/api/v1/wallets') return server.json(res, 200, { data: [{ currency: 'XOF', balance: 100 }] });
    server.json(res, 500, { message: 'unexpected' });
  });
  port = Number(new URL(server.origin).port);
});
afterAll(() => server.close());
beforeEach(() => otel.reset());

const client = (apiKey = API_KEY) =>
  new PaymentsClient({ apiKey, baseUrl: server.origin, telemetry: otel.telemetry, retryBackoff: { initialMs: 1, maxMs: 2 } });

describe('client spans', () => {
  it('payments.create: a span in the caller context, one CLIENT attempt under it, the SDK attributes', async () => {
    const c = client(LIVE_KEY);
    const parent = otel.tracer.startSpan('merchant.checkout');
    const { context, trace } = await import('@opentelemetry/api');
    await context.with(trace.setSpan(context.active(), parent), () =>
      c.payments.create(chargeParams, { idempotencyKey: 'order-1042-charge' }),
    );
    parent.end();
    const call = otel.span('payments.create');
    const attempt = otel.span('POST /api/v1/payments');
    expect(parentOf(call)).toBe(parent.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(parentOf(attempt)).toBe(call.spanContext().spanId);
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes).toMatchObject({
      'payments.operation': 'payments.create',
      'payments.idempotency_key': 'order-1042-charge',
      'payments.replayed': false,
      'payments.mode': 'live',
      'http.response.status_code': 201,
    });
    expect(attempt.attributes).toEqual({
      'http.request.method': 'POST',
      'url.template': '/api/v1/payments',
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 201,
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(attempt.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a replayed creation sets payments.replayed', async () => {
    const c = client();
    await c.payments.create(chargeParams, { idempotencyKey: 'same-key' });
    await c.payments.create(chargeParams, { idempotencyKey: 'same-key' });
    const replays = otel.spans().filter((span) => span.name === 'payments.create');
    expect(replays.map((span) => span.attributes['payments.replayed'])).toEqual([false, true]);
    expect(replays[1]?.attributes['payments.mode']).toBe('sandbox');
  });

  it('retrieve: url.template holds the placeholder, never the id; the call span holds the uuid of the payment read', async () => {
    const read = await client().payments.retrieve('9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b');
    const attempt = otel.span('GET /api/v1/payments/{uuid}');
    expect(attempt.attributes['url.template']).toBe('/api/v1/payments/{uuid}');
    expect(parentOf(attempt)).toBe(otel.span('payments.retrieve').spanContext().spanId);
    expect(JSON.stringify(attempt.attributes)).not.toContain(read.uuid);
    expect(otel.span('payments.retrieve').attributes['payments.payment.uuid']).toBe(read.uuid);
  });

  it('a 404: error.type "404" on the attempt, the error class on the call, both ERROR', async () => {
    await expect(client().payments.retrieve('unknown-payment')).rejects.toBeInstanceOf(NotFoundError);
    const call = otel.span('payments.retrieve');
    const attempt = otel.span('GET /api/v1/payments/{uuid}');
    expect(attempt.attributes).toMatchObject({ 'error.type': '404', 'http.response.status_code': 404 });
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes).toMatchObject({ 'error.type': 'NotFoundError', 'http.response.status_code': 404 });
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: 'NotFoundError' });
    // The service's message ("Paiement introuvable.") is not exported: it may quote what was sent.
    expect(JSON.stringify([call, attempt].map((s) => [s.attributes, s.status, s.events]))).not.toContain('introuvable');
  });

  it('a retry: two CLIENT spans under one call, the second with http.request.resend_count 1', async () => {
    await client().checkoutSessions.retrieve('01JD3Z8Q4X5Y6Z7A8B9C0D1E2F');
    const call = otel.span('checkoutSessions.retrieve');
    const attempts = otel.spans().filter((span) => span.name === 'GET /api/v1/checkout-sessions/{reference}');
    expect(attempts).toHaveLength(2);
    expect(attempts.map(parentOf)).toEqual([call.spanContext().spanId, call.spanContext().spanId]);
    expect(attempts[0]?.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(attempts[0]?.attributes).not.toHaveProperty('http.request.resend_count');
    expect(attempts[1]?.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1 });
    expect(attempts[1]?.attributes).not.toHaveProperty('error.type');
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    const retries = await otel.points('payments.client.retries');
    expect(retries).toContainEqual({
      attributes: {
        'payments.operation': 'checkoutSessions.retrieve',
        'http.request.method': 'GET',
        'url.template': '/api/v1/checkout-sessions/{reference}',
        'server.address': '127.0.0.1',
        'server.port': port,
      },
      value: 1,
    });
  });

  it('a list: one payments.list span per page read, each with its attempt', async () => {
    const all = await client().payments.list().toArray();
    expect(all).toHaveLength(2);
    const pages = otel.spans().filter((span) => span.name === 'payments.list');
    const attempts = otel.spans().filter((span) => span.name === 'GET /api/v1/payments');
    expect(pages).toHaveLength(2);
    expect(attempts.map(parentOf).sort()).toEqual(pages.map((span) => span.spanContext().spanId).sort());
    // The query (page=2) is not in the template.
    expect(attempts.every((span) => span.attributes['url.template'] === '/api/v1/payments')).toBe(true);
  });

  it('wallets.list and bad params: the call span exists and says why it failed', async () => {
    await client().wallets.list();
    expect(otel.span('wallets.list').attributes['url.template']).toBe('/api/v1/wallets');
    // biome-ignore lint/suspicious/noExplicitAny: a merchant's untyped JavaScript.
    await expect(client().payments.create({ ...chargeParams, amount: -1 } as any)).rejects.toThrow();
    const refused = otel.spans().filter((span) => span.name === 'payments.create');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.attributes['error.type']).toBe('InvalidParamsError');
    expect(otel.spans().filter((span) => span.kind === SpanKind.CLIENT && span.name.startsWith('POST'))).toHaveLength(0);
  });

  it('http.client.request.duration: one record per attempt, in seconds, with the conventions attributes', async () => {
    const c = client();
    await c.checkoutSessions.retrieve('01JD3Z8Q4X5Y6Z7A8B9C0D1E2F');
    const attempts = otel.spans().filter((span) => span.kind === SpanKind.CLIENT);
    const points = await otel.points('http.client.request.duration');
    const ok = points.find(
      (p) => p.attributes['http.response.status_code'] === 200 && p.attributes['url.template'] === '/api/v1/checkout-sessions/{reference}',
    );
    const failed = points.find((p) => p.attributes['http.response.status_code'] === 503);
    expect(ok?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.template': '/api/v1/checkout-sessions/{reference}',
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 200,
    });
    expect(failed?.attributes['error.type']).toBe('503');
    const okHistogram = ok?.value as Histogram;
    expect(okHistogram.count).toBeGreaterThanOrEqual(1);
    // Seconds, not milliseconds: a loopback answer takes well under a second and at least a microsecond.
    const attempt = attempts.find((span) => span.attributes['http.response.status_code'] === 200);
    const spanSeconds = attempt ? seconds(attempt.duration) : Number.NaN;
    const sum = okHistogram.sum ?? Number.NaN;
    expect(sum / okHistogram.count).toBeLessThan(1);
    expect(sum).toBeGreaterThan(0);
    expect(spanSeconds).toBeLessThan(1);
    const metrics = await otel.metrics();
    expect(metrics.find((m) => m.descriptor.name === 'http.client.request.duration')?.descriptor.unit).toBe('s');
  });

  it('a connection failure: error.type names the SDK error on every attempt', async () => {
    const closed = await startServer(() => {});
    const origin = closed.origin;
    await closed.close();
    const c = new PaymentsClient({
      apiKey: API_KEY,
      baseUrl: origin,
      telemetry: otel.telemetry,
      maxRetries: 1,
      retryBackoff: { initialMs: 1 },
    });
    await expect(c.wallets.list()).rejects.toThrow();
    const attempts = otel.spans().filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts.map((span) => span.attributes['error.type'])).toEqual(['APIConnectionError', 'APIConnectionError']);
    expect(attempts.map((span) => span.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(otel.span('wallets.list').attributes['error.type']).toBe('APIConnectionError');
  });

  it('a timed-out attempt: error.type APITimeoutError, no status', async () => {
    const stall = await startServer(() => {}, { readBody: false });
    try {
      const c = new PaymentsClient({ apiKey: API_KEY, baseUrl: stall.origin, telemetry: otel.telemetry, timeout: 50, maxRetries: 0 });
      await expect(c.wallets.list()).rejects.toThrow(/timed out/);
      const attempt = otel.span('GET /api/v1/wallets');
      expect(attempt.attributes['error.type']).toBe('APITimeoutError');
      expect(attempt.attributes).not.toHaveProperty('http.response.status_code');
      expect(otel.span('wallets.list').attributes['error.type']).toBe('APITimeoutError');
    } finally {
      await stall.close();
    }
  });

  it('a custom fetch sees the init it would see without telemetry', async () => {
    const inits: (RequestInit | undefined)[] = [];
    const recording: typeof fetch = (input, init) => {
      inits.push(init);
      return fetch(input, init);
    };
    const plain = new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, fetch: recording });
    const observed = new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, fetch: recording, telemetry: otel.telemetry });
    await plain.wallets.list();
    await observed.wallets.list();
    expect(inits).toHaveLength(2);
    expect(Object.keys(inits[1] ?? {}).sort()).toEqual(Object.keys(inits[0] ?? {}).sort());
  });

  it('client.request: a `request` span named by its method alone, without url.template (its path holds the id); its attempt under it', async () => {
    await client().request({ method: 'GET', path: '/payments/pay_secret-looking-id' });
    const call = otel.span('request');
    const attempt = otel.span('GET');
    expect(parentOf(attempt)).toBe(call.spanContext().spanId);
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes['payments.operation']).toBe('request');
    expect(call.attributes['http.request.method']).toBe('GET');
    expect(call.attributes['http.response.status_code']).toBe(200);
    expect(call.attributes).not.toHaveProperty('url.template');
    expect(attempt.attributes).not.toHaveProperty('url.template');
    expect(JSON.stringify([call.attributes, attempt.attributes])).not.toContain('pay_secret-looking-id');
  });

  it('a 2xx whose body is not JSON: error.type ResponseValidationError on each attempt and on the call', async () => {
    await expect(client().request({ method: 'GET', path: '/broken' }, { maxRetries: 1 })).rejects.toThrow();
    const attempts = otel.spans().filter((span) => span.name === 'GET');
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt.attributes['error.type']).toBe('ResponseValidationError');
    expect(otel.span('request').attributes['error.type']).toBe('ResponseValidationError');
  });

  it("the caller's abort: error.type APIUserAbortError on the attempt and the call", async () => {
    await expect(client().wallets.list({ signal: AbortSignal.abort() })).rejects.toThrow();
    expect(otel.span('GET /api/v1/wallets').attributes['error.type']).toBe('APIUserAbortError');
    expect(otel.span('wallets.list').attributes['error.type']).toBe('APIUserAbortError');
  });

  it('withOptions: the derived client reports to the same telemetry', async () => {
    await client().withOptions({ timeout: 5_000 }).wallets.list();
    expect(otel.span('wallets.list').attributes['http.response.status_code']).toBe(200);
    expect(otel.span('GET /api/v1/wallets').kind).toBe(SpanKind.CLIENT);
  });

  it('without the option nothing is reported; a telemetry without onCall is refused at construction', async () => {
    const recorded = async () =>
      (await otel.points('http.client.request.duration')).reduce((sum, point) => sum + (point.value as Histogram).count, 0);
    const before = await recorded();
    await new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin }).wallets.list();
    expect(otel.spans()).toEqual([]);
    expect(await recorded()).toBe(before);
    // biome-ignore lint/suspicious/noExplicitAny: a merchant's untyped JavaScript.
    expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, telemetry: { onWebhook() {} } as any })).toThrow(
      /telemetry: must be an object with an onCall hook, such as openTelemetry\(\) from payments-sdk\/opentelemetry, got an object/,
    );
  });
});
