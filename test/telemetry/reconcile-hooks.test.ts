/**
 * `client.payments.reconcile()` with `openTelemetry()`, against the testing kit: one
 * `payments.reconcile` span with the window, the payments read and the findings by kind; every list
 * call of the run under it; `payments.reconcile.findings` by kind; a failed run has status ERROR.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { PaymentsClient, type ReconcileFinding } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createCharge } from '../helpers/reconcile.js';
import { otelHarness, parentOf } from './otel.js';

const otel = otelHarness();
const T0 = Date.parse('2026-06-01T08:00:00Z');
const DAY = '2026-06-01';

/** A kit with five payments of the day: two succeeded, one failed, two still pending. */
async function shop() {
  const mock = createMockService({ now: T0 });
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, telemetry: otel.telemetry });
  const uuids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const payment = await createCharge(client, i);
    uuids.push(payment.uuid);
  }
  await mock.settlePayment(uuids[0] as string);
  await mock.settlePayment(uuids[1] as string);
  await mock.failPayment(uuids[2] as string);
  otel.reset();
  return { client, uuids };
}

async function collect(iterable: AsyncIterable<ReconcileFinding>): Promise<ReconcileFinding[]> {
  const out: ReconcileFinding[] = [];
  for await (const finding of iterable) out.push(finding);
  return out;
}

describe('payments.reconcile with openTelemetry()', () => {
  it('one span with the window, the payments read and the findings; its list calls under it; the findings counter by kind', async () => {
    const { client, uuids } = await shop();
    // The first succeeded payment was handled; the other succeeded one and the failed one were not.
    const findings = await collect(client.payments.reconcile({ from: DAY, to: DAY, isHandled: (p) => p.uuid === uuids[0] }));
    expect(findings.map((f) => f.kind).sort()).toEqual(['missed', 'missed', 'stale', 'stale']);

    const span = otel.span('payments.reconcile');
    expect(span.attributes).toEqual({
      'payments.reconcile.from': DAY,
      'payments.reconcile.to': DAY,
      'payments.reconcile.checked': 5,
      'payments.reconcile.findings.missed': 2,
      'payments.reconcile.findings.stale': 2,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const lists = otel.spans().filter((s) => s.name === 'payments.list');
    // One page per status read (succeeded, refunded, disputed, failed, pending, processing), then the
    // three counts that look for statuses this SDK does not know.
    expect(lists).toHaveLength(9);
    for (const list of lists) expect(parentOf(list)).toBe(span.spanContext().spanId);
    expect(await otel.points('payments.reconcile.findings')).toEqual(
      expect.arrayContaining([
        { attributes: { 'payments.reconcile.finding.kind': 'missed' }, value: 2 },
        { attributes: { 'payments.reconcile.finding.kind': 'stale' }, value: 2 },
      ]),
    );
  });

  it('a run that fails: status ERROR and the class of the error', async () => {
    const { client } = await shop();
    const failing = client.payments.reconcile({
      from: DAY,
      isHandled: () => {
        throw new TypeError('the merchant check failed');
      },
    });
    await expect(collect(failing)).rejects.toThrow(TypeError);
    const span = otel.span('payments.reconcile');
    expect(span.attributes['error.type']).toBe('TypeError');
    expect(span.attributes['payments.reconcile.from']).toBe(DAY);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TypeError' });
  });

  it('a consumer that leaves the loop early ends the span once', async () => {
    const { client } = await shop();
    for await (const _finding of client.payments.reconcile({ from: DAY, isHandled: () => false })) break;
    const span = otel.span('payments.reconcile');
    expect(span.attributes['payments.reconcile.findings.missed']).toBe(1);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });
});
