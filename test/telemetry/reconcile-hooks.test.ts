/**
 * The reconciliation hooks of `openTelemetry()`, driven directly (the SDK's reconciliation calls them
 * the same way): a `payments.reconcile` span in the active context whose work runs inside it, and
 * `payments.reconcile.findings` by kind.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { otelHarness, parentOf } from './otel.js';

const otel = otelHarness();

describe('payments.reconcile', () => {
  it('a span with the window, the findings by kind, its work inside it; the findings counter by kind', async () => {
    const run = otel.telemetry.onReconcile?.({ from: '2026-11-01', to: '2026-11-24' });
    if (!run) throw new Error('openTelemetry() has no onReconcile');
    let inner: string | undefined;
    await run.run(async () => {
      const span = otel.tracer.startSpan('payments.list (a page read by the run)');
      inner = parentOf(span as unknown as Parameters<typeof parentOf>[0]);
      span.end();
    });
    run.onFinding('missed');
    run.onFinding('missed');
    run.onFinding('stale');
    run.end({ checked: 250 });
    const span = otel.span('payments.reconcile');
    expect(inner).toBe(span.spanContext().spanId);
    expect(span.attributes).toEqual({
      'payments.reconcile.from': '2026-11-01',
      'payments.reconcile.to': '2026-11-24',
      'payments.reconcile.checked': 250,
      'payments.reconcile.findings.missed': 2,
      'payments.reconcile.findings.stale': 1,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(await otel.points('payments.reconcile.findings')).toEqual(
      expect.arrayContaining([
        { attributes: { 'payments.reconcile.finding.kind': 'missed' }, value: 2 },
        { attributes: { 'payments.reconcile.finding.kind': 'stale' }, value: 1 },
      ]),
    );
  });

  it('a failed run: status ERROR and error.type', () => {
    otel.reset();
    const run = otel.telemetry.onReconcile?.({});
    run?.end({ errorType: 'APIConnectionError' });
    const span = otel.span('payments.reconcile');
    expect(span.attributes).toEqual({ 'error.type': 'APIConnectionError' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'APIConnectionError' });
  });
});
