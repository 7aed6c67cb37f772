/**
 * From a payment to its trace, through the real OpenTelemetry SDK and the testing kit: each call
 * span and each `payments.webhook` span carries the id of the record it read or created
 * (`payments.payment.uuid`, `payments.checkout_session.reference`, `payments.payout.id`,
 * `payments.payment_link.id`); `payments.webhook.duration` is recorded in seconds by outcome; and
 * no metric attribute holds an id or an event type the SDK does not know.
 */
import { randomUUID } from 'node:crypto';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { signWebhookPayload, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/testing/node-server.js';
import { liveClient, payoutMock, row } from '../helpers/bulk.js';
import { payment } from '../helpers/fixtures.js';
import { otelHarness } from './otel.js';

const otel = otelHarness();
beforeEach(() => otel.reset());

describe('call spans carry the record read or created', () => {
  it('payments, checkout sessions, payouts and payment links, created and retrieved; a list carries none', async () => {
    const client = liveClient(payoutMock(), { telemetry: otel.telemetry });
    const charge = await client.payments.create({
      amount: 1000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
    });
    await client.payments.retrieve(charge.uuid);
    const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    const payout = await client.payouts.create(row(1));
    const link = await client.paymentLinks.create({ title: 'T-shirt', currency: 'XOF', amount: 7500 });
    await client.payments.list({ per_page: 5 });
    const attributesOf = (name: string) =>
      otel
        .spans()
        .filter((s) => s.name === name)
        .map((s) => s.attributes);
    expect(attributesOf('payments.create')[0]?.['payments.payment.uuid']).toBe(charge.uuid);
    expect(attributesOf('payments.retrieve')[0]?.['payments.payment.uuid']).toBe(charge.uuid);
    expect(attributesOf('checkoutSessions.create')[0]?.['payments.checkout_session.reference']).toBe(session.reference);
    expect(attributesOf('payouts.create')[0]?.['payments.payout.id']).toBe(String(payout.id));
    expect(attributesOf('paymentLinks.create')[0]?.['payments.payment_link.id']).toBe(link.uuid);
    const list = attributesOf('payments.list')[0] ?? {};
    expect(Object.keys(list).filter((key) => key.startsWith('payments.payment'))).toEqual([]);
    // The ids are on the call spans only: never on an HTTP attempt span, never on a metric.
    const attempts = otel.spans().filter((s) => s.name.startsWith('GET ') || s.name.startsWith('POST '));
    expect(JSON.stringify(attempts.map((s) => s.attributes))).not.toContain(charge.uuid);
    const metrics = JSON.stringify((await otel.metrics()).map((m) => m.dataPoints.map((p) => p.attributes)));
    for (const id of [charge.uuid, session.reference, String(payout.id), link.uuid]) expect(metrics).not.toContain(id);
  });
});

describe('payments.webhook: the record, the duration, bounded metric attributes', () => {
  const SECRET = 'whsec_records_test';
  let endpoint: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    endpoint = await startServer(
      webhookHandler({
        secret: SECRET,
        telemetry: otel.telemetry,
        onError: () => {},
        onEvent: (event) => {
          if (event.id.startsWith('evt_fail')) throw new Error('database down');
        },
      }),
    );
  });
  afterAll(() => endpoint.close());

  async function deliver(type: string, data: unknown, id = `evt_${randomUUID()}`) {
    const body = JSON.stringify({ id, type, data });
    const signature = await signWebhookPayload(body, SECRET);
    const answer = await fetch(endpoint.url, { method: 'POST', body, headers: { 'x-service-signature': signature } });
    return { status: answer.status, id };
  }

  it('carries the payment uuid or payout id; records the duration by outcome; counts unknown types as other', async () => {
    const paid = payment({ uuid: randomUUID(), status: 'succeeded' });
    const handled = await deliver('payment.succeeded', paid);
    const failed = await deliver('payment.succeeded', { ...paid, uuid: randomUUID() }, `evt_fail_${randomUUID()}`);
    const made = await liveClient(payoutMock()).payouts.create(row(1));
    const payout = await deliver('payout.completed', { ...made, status: 'completed' });
    const unknown = await deliver('refund.created', { id: 'rf_7' });
    expect([handled.status, failed.status, payout.status, unknown.status]).toEqual([200, 500, 200, 200]);
    const spans = otel.spans().filter((s) => s.name === 'payments.webhook');
    expect(spans[0]?.attributes['payments.payment.uuid']).toBe(paid.uuid);
    expect(spans[1]?.attributes['payments.payment.uuid']).toMatch(/-/);
    expect(spans.find((s) => s.attributes['payments.event.type'] === 'payout.completed')?.attributes['payments.payout.id']).toBe(
      String(made.id),
    );
    expect(spans.find((s) => s.attributes['payments.event.type'] === 'refund.created')?.attributes).not.toHaveProperty(
      'payments.payment.uuid',
    );

    const metrics = await otel.metrics();
    const duration = metrics.find((m) => m.descriptor.name === 'payments.webhook.duration');
    expect(duration?.descriptor.unit).toBe('s');
    const byOutcome = Object.fromEntries(
      (duration?.dataPoints ?? []).map((p) => [String(p.attributes['payments.webhook.outcome']), (p.value as Histogram).count]),
    );
    expect(byOutcome.handled).toBeGreaterThanOrEqual(2);
    expect(byOutcome.failed).toBe(1);
    for (const point of duration?.dataPoints ?? []) expect(Object.keys(point.attributes)).toEqual(['payments.webhook.outcome']);
    for (const point of duration?.dataPoints ?? []) expect((point.value as Histogram).sum).toBeLessThan(5);

    const counted = (await otel.points('payments.webhook.deliveries')).map((p) => p.attributes['payments.event.type']);
    expect(counted).toContain('other');
    expect(counted).not.toContain('refund.created');
    const everyAttribute = JSON.stringify(metrics.map((m) => m.dataPoints.map((p) => p.attributes)));
    for (const id of [paid.uuid, handled.id, failed.id, String(made.id), 'rf_7']) expect(everyAttribute).not.toContain(id);
  });
});
