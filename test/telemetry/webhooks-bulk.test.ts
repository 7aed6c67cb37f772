/**
 * The webhook and bulk spans and metrics through the real OpenTelemetry SDK: a `payments.webhook`
 * span per delivery to a handler served on a real loopback port (outcome, event type and id,
 * refusal reason, the merchant's handler inside it), and a `payments.bulk` span whose
 * `payouts.create` calls sit under it, with `payments.bulk.rows` by status.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { PaymentsClient } from 'payments-sdk';
import { signWebhookPayload, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/testing/node-server.js';
import { payoutMock, row, rows } from '../helpers/bulk.js';
import { payment } from '../helpers/fixtures.js';
import { otelHarness, parentOf } from './otel.js';

const otel = otelHarness();
const SECRET = 'whsec_telemetry_test_secret';
let handled: string[] = [];
let innerParent: string | undefined;
let endpoint: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  const handler = webhookHandler({
    secret: SECRET,
    telemetry: otel.telemetry,
    onError: () => {},
    onEvent: async (event) => {
      // The merchant's own span, inside the handler: it must sit under payments.webhook.
      const span = otel.tracer.startSpan('merchant.fulfil');
      innerParent = parentOf(span as unknown as Parameters<typeof parentOf>[0]);
      span.end();
      if (event.id === 'evt_boom') throw new Error('database down');
      handled.push(event.id);
    },
  });
  endpoint = await startServer(handler);
});
afterAll(() => endpoint.close());
beforeEach(() => {
  otel.reset();
  handled = [];
});

async function deliver(id: string, options: { secret?: string; type?: string } = {}) {
  const body = JSON.stringify({ id, type: options.type ?? 'payment.succeeded', data: payment({ status: 'succeeded' }) });
  const signature = await signWebhookPayload(body, options.secret ?? SECRET);
  return fetch(endpoint.url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
}

describe('payments.webhook', () => {
  it('handled, duplicate, refused and failed: one span each, with the outcome, and the deliveries counter', async () => {
    expect((await deliver('evt_1')).status).toBe(200);
    expect((await deliver('evt_1')).status).toBe(200);
    expect((await deliver('evt_2', { secret: 'whsec_wrong' })).status).toBe(400);
    expect((await deliver('evt_boom')).status).toBe(500);
    expect(handled).toEqual(['evt_1']);
    const spans = otel.spans().filter((span) => span.name === 'payments.webhook');
    expect(spans.map((span) => span.attributes)).toEqual([
      {
        'payments.webhook.outcome': 'handled',
        'http.response.status_code': 200,
        'payments.event.type': 'payment.succeeded',
        'payments.event.id': 'evt_1',
        'payments.payment.uuid': payment().uuid,
      },
      {
        'payments.webhook.outcome': 'duplicate',
        'http.response.status_code': 200,
        'payments.event.type': 'payment.succeeded',
        'payments.event.id': 'evt_1',
        'payments.payment.uuid': payment().uuid,
      },
      { 'payments.webhook.outcome': 'refused', 'http.response.status_code': 400, 'payments.webhook.refusal_reason': 'signature_mismatch' },
      {
        'payments.webhook.outcome': 'failed',
        'http.response.status_code': 500,
        'payments.event.type': 'payment.succeeded',
        'payments.event.id': 'evt_boom',
        'payments.payment.uuid': payment().uuid,
        'error.type': 'Error',
      },
    ]);
    expect(spans.map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
    ]);
    // The merchant's error message stays out of the span.
    expect(JSON.stringify(spans.map((span) => [span.status, span.events]))).not.toContain('database down');

    const points = await otel.points('payments.webhook.deliveries');
    const count = (attributes: Record<string, string>) =>
      points.find((p) => JSON.stringify(p.attributes) === JSON.stringify(attributes))?.value;
    expect(count({ 'payments.webhook.outcome': 'handled', 'payments.event.type': 'payment.succeeded' })).toBe(1);
    expect(count({ 'payments.webhook.outcome': 'duplicate', 'payments.event.type': 'payment.succeeded' })).toBe(1);
    expect(count({ 'payments.webhook.outcome': 'refused', 'payments.webhook.refusal_reason': 'signature_mismatch' })).toBe(1);
    expect(count({ 'payments.webhook.outcome': 'failed', 'payments.event.type': 'payment.succeeded' })).toBe(1);
  });

  it("the store's work is a child span of the delivery, and the merchant's handler runs inside the store's span", async () => {
    expect((await deliver('evt_store')).status).toBe(200);
    const [webhook] = otel.spans().filter((span) => span.name === 'payments.webhook');
    const [store] = otel.spans().filter((span) => span.name === 'payments.store');
    expect(store?.attributes).toEqual({ 'payments.store.kind': 'memory' });
    expect(parentOf(store as unknown as Parameters<typeof parentOf>[0])).toBe(webhook?.spanContext().spanId);
    expect(innerParent).toBe(store?.spanContext().spanId);
    expect(store?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a GET is refused with method_not_allowed', async () => {
    expect((await fetch(endpoint.url)).status).toBe(405);
    expect(otel.span('payments.webhook').attributes).toMatchObject({
      'payments.webhook.outcome': 'refused',
      'payments.webhook.refusal_reason': 'method_not_allowed',
    });
  });

  it('a telemetry whose onWebhook is not a function is refused when the handler is built; one without onWebhook reports nothing', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a merchant's untyped JavaScript.
    expect(() => webhookHandler({ secret: SECRET, onEvent: () => {}, telemetry: { onWebhook: 'yes' } as any })).toThrow(
      /telemetry must be an object whose onWebhook is a function/,
    );
    const callsOnly = { onCall: otel.telemetry.onCall };
    const handler = webhookHandler({ secret: SECRET, onEvent: () => {}, telemetry: callsOnly });
    const body = JSON.stringify({ id: 'evt_calls_only', type: 'payment.succeeded', data: payment({ status: 'succeeded' }) });
    const signature = await signWebhookPayload(body, SECRET);
    const answer = await handler(
      new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: { 'x-service-signature': signature } }),
    );
    expect(answer.status).toBe(200);
    expect(otel.spans()).toEqual([]);
  });
});

describe('payments.bulk', () => {
  it('one span per run, its payouts.create calls under it, rows counted by status', async () => {
    const mock = payoutMock();
    const server = await mock.listen();
    try {
      const client = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: server.url, telemetry: otel.telemetry });
      const source = [...rows(3), row(3, { amount: -5 })];
      const summary = await client.payouts
        .createMany(source, { batchId: 'payroll-2026-11', key: (r) => r.reference, skipInvalid: true })
        .summary();
      expect(summary).toMatchObject({ created: 3, failed: 1 });
      const bulk = otel.span('payments.bulk');
      expect(bulk.attributes).toMatchObject({
        'payments.bulk.batch_id': 'payroll-2026-11',
        'payments.bulk.rows': 4,
        'payments.bulk.rows.created': 3,
        'payments.bulk.rows.failed': 1,
        'payments.bulk.aborted': false,
      });
      const creates = otel.spans().filter((span) => span.name === 'payouts.create');
      expect(creates).toHaveLength(3);
      expect(creates.map(parentOf)).toEqual(Array(3).fill(bulk.spanContext().spanId));
      expect(creates.every((span) => String(span.attributes['payments.idempotency_key']).startsWith('bulk1_'))).toBe(true);
      const points = await otel.points('payments.bulk.rows');
      expect(points).toEqual(
        expect.arrayContaining([
          { attributes: { 'payments.bulk.row.status': 'created' }, value: 3 },
          { attributes: { 'payments.bulk.row.status': 'failed' }, value: 1 },
        ]),
      );
    } finally {
      await server.close();
    }
  });

  it('a run refused for a bad row ends its span with the error type', async () => {
    const mock = payoutMock();
    const client = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      fetch: mock.fetch,
      telemetry: otel.telemetry,
    });
    await expect(client.payouts.createMany([row(0, { amount: -5 })], { batchId: 'bad' }).summary()).rejects.toThrow();
    const bulk = otel.span('payments.bulk');
    expect(bulk.attributes).toMatchObject({ 'error.type': 'InvalidParamsError', 'payments.bulk.rows': 0 });
    expect(bulk.status.code).toBe(SpanStatusCode.ERROR);
  });
});
